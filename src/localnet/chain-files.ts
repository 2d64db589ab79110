import { closeSync, existsSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, ftruncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonWithBigInts, stringifyJsonWithBigInts } from '@solana/rpc-spec-types';

export interface SnapshotHeader {
  /** Sequence number of the last ledger record whose effects the snapshot holds. */
  seq: number;
  slot: string;
  genesisHash: string;
  createdAt: string;
}

/** One line of the append-only ledger: a landed transaction and what the RPC reports about it. */
export interface LedgerRecord {
  k: 'tx' | 'slot';
  q: number;
  s: string;
  t?: number;
  tx?: string;
  m?: unknown;
  /** Set on the slot record written by a clean shutdown: `s` is then exactly the last slot served. */
  f?: 1;
  /** The line as read from the file (not written). */
  raw?: string;
}

/**
 * Durable chain state: a snapshot of the runtime plus an append-only ledger of every landed transaction
 * written after it. The ledger is flushed to disk before a slot counts as confirmed, so whatever the RPC
 * ever reported as confirmed survives kill -9.
 */
export class ChainFiles {
  /** null: kept in memory only (a simulated run's chain, which outlives every crash it simulates). */
  readonly dir: string | null;
  private fd: number | null = null;
  /** Lines not yet written: one write + one fdatasync per slot instead of a syscall per transaction. */
  private pending: string[] = [];
  private pendingBytes = 0;

  constructor(dataDir: string | null) {
    this.dir = dataDir === null ? null : join(dataDir, 'localnet');
    if (this.dir) mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  get durable(): boolean {
    return this.dir !== null;
  }

  get snapshotPath() {
    return join(this.dir ?? '', 'snapshot.bin');
  }
  get ledgerPath() {
    return join(this.dir ?? '', 'ledger.jsonl');
  }

  readSnapshot(): { header: SnapshotHeader; state: Uint8Array } | null {
    if (!this.dir || !existsSync(this.snapshotPath)) return null;
    const buf = readFileSync(this.snapshotPath);
    const headerLength = buf.readUInt32LE(0);
    const header = JSON.parse(buf.subarray(4, 4 + headerLength).toString('utf8')) as SnapshotHeader;
    return { header, state: new Uint8Array(buf.buffer, buf.byteOffset + 4 + headerLength, buf.length - 4 - headerLength) };
  }

  /** Atomic replace: write a temp file, fsync it, rename over the old one, fsync the directory. */
  writeSnapshot(header: SnapshotHeader, state: Uint8Array): void {
    if (!this.dir) return;
    this.sync();
    const tmp = `${this.snapshotPath}.tmp`;
    const head = Buffer.from(JSON.stringify(header), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(head.length, 0);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, len);
      writeSync(fd, head);
      writeSync(fd, state);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.snapshotPath);
    const dirFd = openSync(this.dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }

  /** Reads every complete ledger line; a torn last line (crash mid-write) is cut off. */
  readLedger(): LedgerRecord[] {
    if (!this.dir || !existsSync(this.ledgerPath)) return [];
    const buf = readFileSync(this.ledgerPath);
    const records: LedgerRecord[] = [];
    let start = 0;
    let goodEnd = 0;
    for (let i = 0; i < buf.length; i++) {
      if (buf[i] !== 0x0a) continue;
      const line = buf.subarray(start, i).toString('utf8');
      start = i + 1;
      try {
        const r = parseJsonWithBigInts(line) as LedgerRecord;
        // parseJsonWithBigInts turns every integer into a bigint; the sequence number and time are plain numbers.
        records.push({ ...r, q: Number(r.q), t: r.t === undefined ? undefined : Number(r.t), f: r.f === undefined ? undefined : 1, raw: line });
        goodEnd = i + 1;
      } catch {
        break;
      }
    }
    if (goodEnd < buf.length) {
      const fd = openSync(this.ledgerPath, 'r+');
      try {
        ftruncateSync(fd, goodEnd);
      } finally {
        closeSync(fd);
      }
    }
    return records;
  }

  append(record: LedgerRecord): void {
    this.appendLine(stringifyJsonWithBigInts(record));
  }

  /** Appends one pre-serialized record (a single JSON line). Durable at the next sync(). */
  appendLine(json: string): void {
    if (!this.dir) return;
    this.pending.push(json);
    this.pendingBytes += json.length;
    if (this.pendingBytes > 4 * 1024 * 1024) this.sync();
  }

  sync(): void {
    if (this.pending.length === 0) return;
    if (this.fd === null) this.fd = openSync(this.ledgerPath, 'a', 0o600);
    this.pending.push('');
    writeSync(this.fd, this.pending.join('\n'));
    this.pending = [];
    this.pendingBytes = 0;
    fdatasyncSync(this.fd);
  }

  close(): void {
    this.sync();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
