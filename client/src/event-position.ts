/**
 * Where an event stream stands: the events it gave (so that none is given twice) and the id to resume
 * from, which never goes backwards. Ids are compared by "seen before", whatever their form (per-account
 * sequences, opaque strings); ids that are decimal integers are also compared by value.
 */

/** How many of the last ids are remembered: repeats come at reconnects, right after the last id. */
const REMEMBERED = 1024;
const DECIMAL_ID = /^(0|[1-9]\d*)$/;

/** Decimal ids by value (no precision lost past 2^53); undefined when either is not decimal. */
function compare(a: string, b: string): number | undefined {
  if (!DECIMAL_ID.test(a) || !DECIMAL_ID.test(b)) return undefined;
  if (a.length !== b.length) return a.length - b.length;
  return a === b ? 0 : a < b ? -1 : 1;
}

export class EventPosition {
  private readonly seen = new Set<string>();
  /** The id to resume from (`last_event_id`); undefined to start from now. */
  last: string | undefined;

  constructor(last: string | undefined) {
    this.last = last;
    if (last !== undefined) this.remember(last);
  }

  private remember(id: string): void {
    this.seen.add(id);
    if (this.seen.size > REMEMBERED) this.seen.delete(this.seen.values().next().value as string);
  }

  /** An event's id: true when the event is new (never seen, not behind the position), which then moves to it. */
  take(id: string): boolean {
    if (id === '' || this.seen.has(id)) return false;
    if (this.last !== undefined && (compare(id, this.last) ?? 1) <= 0) return false;
    this.remember(id);
    this.last = id;
    return true;
  }

  /**
   * A bare `id:` line (the position a stream starts from): taken when there is no position yet, or when it
   * is a decimal id ahead of it. One seen before, behind, or not comparable would move the position back.
   */
  start(id: string): void {
    if (id === '' || this.seen.has(id)) return;
    if (this.last === undefined || (compare(id, this.last) ?? 0) > 0) {
      this.remember(id);
      this.last = id;
    }
  }

  /** A `reset`: the server goes on from `id`, which may be behind (its history restarted); what was seen says nothing now. */
  reset(id: string): void {
    this.seen.clear();
    this.remember(id);
    this.last = id;
  }
}
