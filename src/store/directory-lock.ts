import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One process at a time on a PGlite directory: two PGlite instances on the same files diverge and can
 * corrupt them, and PGlite takes no lock of its own. A lock file holding the owner's pid; one left by a
 * process that is gone is taken over. Returns the release function.
 */
export function lockDirectory(lockPath: string, what: string): () => void {
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(lockPath, 'utf8').trim() === String(process.pid)) unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
      let owner = NaN;
      try {
        owner = Number(readFileSync(lockPath, 'utf8').trim());
      } catch {
        // vanished meanwhile: retry
      }
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new Error(`${what} is in use by process ${owner} (${lockPath}); stop it first, or use its admin API (HUSH_ADMIN_TOKEN)`);
      }
      // Stale (its process is gone) or our own from an earlier open in this process: take it over.
      try {
        unlinkSync(lockPath);
      } catch {
        // gone already
      }
    }
  }
}
