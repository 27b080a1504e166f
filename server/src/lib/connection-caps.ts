/**
 * How many TCP connections an instance holds open: a few hundred per client address, and in all fewer than
 * its open files and than its heap holds, so that connections which send nothing cannot take every file
 * descriptor (21,600 of them once did: every other client was refused until they closed, and the process
 * died of EMFILE when it next opened a file) nor the heap. A connection over a cap is closed at once
 * (plugins/connections.ts); these are the counts and the rules, apart from the sockets.
 */
import { readFileSync } from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import { oldGenerationLimit } from './heap.js';

/** The open-file limit assumed where the process's own cannot be read (no /proc): a common soft default. */
const ASSUMED_OPEN_FILES = 1024;
/**
 * What one idle connection costs the heap, with a margin: measured at 3.3 KiB kept after a full collection
 * (and 4.5 KiB of resident memory) with 5,000 connections open that sent nothing; taken over twice for what a
 * collection has not reclaimed yet and for a connection in the middle of a request.
 */
export const HEAP_PER_CONNECTION_BYTES = 8 * 1024;
/** The share of the heap connections may take (event streams, which are connections too, take theirs). */
export const CONNECTIONS_HEAP_SHARE = 0.5;

export interface ConnectionLimits {
  /** Connections one client address may hold; 0: no cap per address. */
  perAddress: number;
  /** Connections the instance holds in all. */
  perInstance: number;
}

/**
 * The process's open-file limit (the soft limit, which Node raises to the hard one at start), from
 * /proc/self/limits; null where that cannot be read or says "unlimited".
 */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  let text: string;
  try {
    text = read();
  } catch {
    return null;
  }
  const soft = /^Max open files\s+(\d+)\s/m.exec(text)?.[1];
  return soft === undefined ? null : Number(soft);
}

/**
 * The connections an instance may hold for `openFiles` file descriptors: what is left once a tenth (at least
 * 128) is kept for everything else the process opens (database pool, SQLite files, Redis, logs, the metrics
 * port, the listening sockets).
 */
export function connectionsForOpenFiles(openFiles: number): number {
  return Math.max(1, openFiles - Math.max(128, Math.ceil(openFiles / 10)));
}

/** The connections a heap of `heapLimitBytes` holds beside the rest of the work (this process's by default). */
export function connectionsForHeap(heapLimitBytes = oldGenerationLimit()): number {
  return Math.max(1, Math.floor((heapLimitBytes * CONNECTIONS_HEAP_SHARE) / HEAP_PER_CONNECTION_BYTES));
}

/**
 * The caps as configured: a per-instance cap of 0 is derived from the open-file limit and the heap, the
 * lower of the two; the per-address cap is off behind trusted proxies, whose connections all come from the
 * proxy's address (the proxy caps each client's own: `limit_conn` in nginx).
 */
export function connectionLimits(
  config: { connectionsPerAddress: number; connectionsPerInstance: number; trustProxyHops: number },
  process: { openFiles: number | null; heapLimitBytes: number } = {
    openFiles: openFileLimit(),
    heapLimitBytes: oldGenerationLimit(),
  },
): ConnectionLimits {
  const derived = () =>
    Math.min(
      connectionsForOpenFiles(process.openFiles ?? ASSUMED_OPEN_FILES),
      connectionsForHeap(process.heapLimitBytes),
    );
  return {
    perAddress: config.trustProxyHops > 0 ? 0 : config.connectionsPerAddress,
    perInstance: config.connectionsPerInstance > 0 ? config.connectionsPerInstance : derived(),
  };
}

/**
 * The key a client address is counted under: an IPv4 address (also when written IPv4-mapped, `::ffff:…`),
 * or an IPv6 address's /64 network, which one host or one home is given whole. Every signed-in request asks
 * (its limits are per address), mostly for the few addresses it saw last: the keys of the latest addresses are
 * kept, at most ADDRESS_KEYS_KEPT of them (all let go at once when full: an attacker's many addresses cost
 * memory no longer than that), instead of testing the address's patterns on every request.
 */
export function addressKey(address: string): string {
  let key = addressKeys.get(address);
  if (key === undefined) {
    if (addressKeys.size >= ADDRESS_KEYS_KEPT) addressKeys.clear();
    key = keyOfAddress(address);
    addressKeys.set(address, key);
  }
  return key;
}

const ADDRESS_KEYS_KEPT = 4096;
const addressKeys = new Map<string, string>();

function keyOfAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return mapped;
  if (isIPv4(address) || !isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('%', 1)[0]?.split('::') ?? [];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // A trailing dotted IPv4 (::1.2.3.4) takes two groups but lies past the /64.
  const missing = 8 - left.length - right.length - (right.at(-1)?.includes('.') ? 1 : 0);
  const groups = [...left, ...Array(Math.max(0, missing)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** Why a connection was refused: its address holds its cap, or the instance holds its own. */
export type Refusal = 'address' | 'instance';

/** What the connections of an instance look like: open now, the caps, refused and timed out so far. */
export interface ConnectionCounts {
  open: number;
  limits: ConnectionLimits;
  refused: Record<Refusal, number>;
  /** Closed for sending nothing before their first request (`idle`), or a request too slowly (`request`, 408). */
  timedOut: { idle: number; request: number };
}

/**
 * The open connections' count, by address key and in all. `admit` takes a slot or says why not; the slot is
 * given back by `release` with the key `admit` returned, once.
 */
export class ConnectionSlots implements ConnectionCounts {
  readonly limits: ConnectionLimits;
  readonly refused = { address: 0, instance: 0 };
  readonly timedOut = { idle: 0, request: 0 };
  readonly #byAddress = new Map<string, number>();
  #open = 0;

  constructor(limits: ConnectionLimits) {
    this.limits = limits;
  }

  get open(): number {
    return this.#open;
  }

  /** Connections held by the address key `key`. */
  heldBy(key: string): number {
    return this.#byAddress.get(key) ?? 0;
  }

  /** Takes a slot for a connection from `address`: its key, or the refusal (counted). */
  admit(address: string): { key: string } | { refused: Refusal } {
    if (this.#open >= this.limits.perInstance) {
      this.refused.instance++;
      return { refused: 'instance' };
    }
    const key = addressKey(address);
    const held = this.#byAddress.get(key) ?? 0;
    if (this.limits.perAddress > 0 && held >= this.limits.perAddress) {
      this.refused.address++;
      return { refused: 'address' };
    }
    this.#byAddress.set(key, held + 1);
    this.#open++;
    return { key };
  }

  /** Gives back a slot `admit` took under `key`. */
  release(key: string): void {
    const held = this.#byAddress.get(key) ?? 0;
    if (held <= 0) return;
    if (held === 1) this.#byAddress.delete(key);
    else this.#byAddress.set(key, held - 1);
    this.#open--;
  }
}
