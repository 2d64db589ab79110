/**
 * Ports for a test that must know them before a server listens (a restart on the same port, a redirect URL an
 * identity provider registers). Picked below the kernel's ephemeral range (Linux: 32768–60999), where no
 * outgoing connection's local port ever lands: a port left to the kernel (`listen(0)`, then closed) is one the
 * next outgoing connection of any test process may take before the server binds it ("port … is in use" on a
 * busy run). Here only another listener choosing the same way could, and each is checked free by binding it.
 */
import { createServer, type Server } from 'node:net';

const LOW = 20_000;
const HIGH = 32_000;

function tryListen(port: number): Promise<Server | null> {
  const s = createServer();
  return new Promise((resolve) => {
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

/** `n` distinct ports free now, outside the ephemeral range. */
export async function freePorts(n: number): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  for (let tries = 0; ports.length < n; tries++) {
    if (tries > 200) throw new Error(`no ${n} free ports in ${LOW}–${HIGH}`);
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (ports.includes(port)) continue;
    const s = await tryListen(port);
    if (s) {
      held.push(s);
      ports.push(port);
    }
  }
  await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  return ports;
}
