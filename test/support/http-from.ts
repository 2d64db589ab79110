/**
 * One HTTP request from a chosen local source address (fetch cannot choose one): 127.0.0.0/8 is all this
 * machine, so a test can speak as many clients, e.g. to stay clear of a per-address throttle it is not about.
 */
import { request } from 'node:http';

export async function fetchFrom(source: string, url: string, init: { method: string; headers: Record<string, string>; body?: string | Uint8Array }): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    // node:http sends a GET or DELETE body unframed unless told its length (fetch frames it).
    const length = init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) };
    const req = request(url, { method: init.method, headers: { ...length, ...init.headers }, localAddress: source, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A random loopback address other than 127.0.0.1. */
export function randomLoopback(): string {
  const b = () => Math.floor(Math.random() * 254) + 1;
  return `127.${b()}.${b()}.${b()}`;
}
