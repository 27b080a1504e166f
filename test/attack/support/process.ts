/**
 * Whether the server process a test started is still alive. `startGateway` does not hand out its child,
 * so the child is found in /proc by the data folder it was given (unique per start); off Linux, null.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function gatewayPid(dataDir: string): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  for (const entry of entries) {
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (!environ.includes(`DATA_DIR=${dataDir}`)) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('cli.js') && cmdline.includes('serve')) return Number(entry);
    } catch {
      // a process that ended or is not ours to read
    }
  }
  return null;
}

export function isAlive(pid: number): boolean {
  try {
    // Signal 0 only checks the process exists; a zombie (exited, not reaped) has state Z.
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}
