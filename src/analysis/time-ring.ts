/**
 * A fixed-size ring of time buckets of one width, advanced by the clock: SLO counts, minute
 * history and request rates keep their numbers in one. Each bucket holds `fields` numbers (a
 * count, errors, a cost...) in one flat `Float64Array`, with a running total per field over the
 * ring, so adding and reading a total are O(1); moving to a new bucket clears the buckets that
 * left the ring (at most `size` of them, however far the clock jumped).
 *
 * The ring covers the current bucket and the `size - 1` before it: between `(size - 1) x bucketMs`
 * and `size x bucketMs` of time. A clock that goes back adds to the current bucket.
 *
 * Totals are exact for integer amounts; fractional amounts (costs) are re-summed from the buckets
 * once per lap of the ring, so rounding never accumulates.
 *
 * @example
 * const perMinute = new TimeRing(60_000, 60, 2); // requests and errors, last hour
 * perMinute.add(clock.now(), 0);
 * perMinute.total(clock.now(), 0); // requests in the last 60 minutes
 */
export class TimeRing {
  private readonly data: Float64Array;
  private readonly totals: Float64Array;
  /** Bucket number (time / bucketMs) of the newest bucket; -Infinity before the first use. */
  private newest = Number.NEGATIVE_INFINITY;
  private sinceResum = 0;

  /**
   * @param bucketMs width of a bucket
   * @param size number of buckets
   * @param fields numbers per bucket
   * @param onClear told the slot of each bucket cleared, so callers can clear data they keep per slot
   */
  constructor(
    readonly bucketMs: number,
    readonly size: number,
    readonly fields = 1,
    private readonly onClear?: (slot: number) => void,
  ) {
    if (!(bucketMs > 0 && Number.isInteger(size) && size > 0 && Number.isInteger(fields) && fields > 0)) throw new RangeError('TimeRing needs bucketMs > 0 and whole size and fields >= 1');
    this.data = new Float64Array(size * fields);
    this.totals = new Float64Array(fields);
  }

  /** Adds `amount` to `field` of the bucket of `now`; returns that bucket's slot. */
  add(now: number, field = 0, amount = 1): number {
    const slot = this.slotAt(now);
    this.data[slot * this.fields + field]! += amount;
    this.totals[field]! += amount;
    return slot;
  }

  /** Adds to a slot returned by `add` or `slotAt` for the current bucket (no clock read). */
  addTo(slot: number, field: number, amount = 1): void {
    this.data[slot * this.fields + field]! += amount;
    this.totals[field]! += amount;
  }

  /**
   * Adds `amount` to `field` of bucket number `bucket` (time / bucketMs) as of `now`, for counts
   * kept elsewhere (a previous run's): a bucket that left the ring is dropped (returns -1), and one
   * ahead of the ring's newest counts in the newest, as a clock that went back does. Returns the slot.
   */
  addAt(now: number, bucket: number, field: number, amount: number): number {
    const newest = this.slotAt(now);
    if (!(bucket > this.newest - this.size)) return -1;
    const slot = bucket >= this.newest ? newest : this.slotOf(bucket);
    this.addTo(slot, field, amount);
    return slot;
  }

  /** Moves the ring to the bucket of `now` and returns its slot. */
  slotAt(now: number): number {
    const bucket = Math.floor(now / this.bucketMs);
    if (bucket > this.newest) this.moveTo(bucket);
    return this.slotOf(this.newest);
  }

  /** Bucket number (time / bucketMs) of the newest bucket: it changes when the ring moves. */
  get newestBucket(): number {
    return this.newest;
  }

  /** Total of `field` over the ring at `now`. */
  total(now: number, field = 0): number {
    this.slotAt(now);
    return this.totals[field]!;
  }

  /** Total of `field` over the last `buckets` buckets (the current one included) at `now`; O(buckets). */
  sum(now: number, field: number, buckets: number): number {
    this.slotAt(now);
    let sum = 0;
    for (let back = 0; back < Math.min(buckets, this.size); back++) sum += this.data[this.slotOf(this.newest - back) * this.fields + field]!;
    return sum;
  }

  /** The value of `field` in `slot`. */
  get(slot: number, field = 0): number {
    return this.data[slot * this.fields + field]!;
  }

  /** Sets `field` of `slot` (for corrections of a kept bucket), keeping the total. */
  set(slot: number, field: number, value: number): void {
    const at = slot * this.fields + field;
    this.totals[field]! += value - this.data[at]!;
    this.data[at] = value;
  }

  /**
   * The last `buckets` buckets at `now`, oldest first: each one's start time and slot, for reading
   * with `get` (and data kept per slot). Allocates; meant for reads, not the hot path.
   */
  buckets(now: number, buckets: number): { start: number; slot: number }[] {
    this.slotAt(now);
    const out: { start: number; slot: number }[] = [];
    for (let back = Math.min(buckets, this.size) - 1; back >= 0; back--) {
      const bucket = this.newest - back;
      out.push({ start: bucket * this.bucketMs, slot: this.slotOf(bucket) });
    }
    return out;
  }

  private slotOf(bucket: number): number {
    const slot = bucket % this.size;
    return slot < 0 ? slot + this.size : slot;
  }

  private moveTo(bucket: number): void {
    const first = Math.max(this.newest + 1, bucket - this.size + 1);
    for (let b = first; b <= bucket; b++) this.clear(this.slotOf(b));
    this.newest = bucket;
    this.sinceResum += bucket - first + 1;
    if (this.sinceResum >= this.size) this.resum();
  }

  private clear(slot: number): void {
    const at = slot * this.fields;
    for (let f = 0; f < this.fields; f++) {
      this.totals[f]! -= this.data[at + f]!;
      this.data[at + f] = 0;
    }
    this.onClear?.(slot);
  }

  private resum(): void {
    this.sinceResum = 0;
    this.totals.fill(0);
    for (let slot = 0; slot < this.size; slot++) for (let f = 0; f < this.fields; f++) this.totals[f]! += this.data[slot * this.fields + f]!;
  }
}
