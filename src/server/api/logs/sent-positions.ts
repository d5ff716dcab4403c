/**
 * The line positions a log viewer has been sent, as sorted, disjoint half-open ranges
 * `[start, end)`. Lines nearly always arrive in order, so this is one range whatever the log's
 * length — a set of every position would cost a viewer of a million-line log tens of megabytes.
 * Out-of-order lines (the stored log filling a gap at the end of a step) add a range and merge.
 */
export class SentPositions {
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];

  /** Records `pos`; false when it was already recorded. */
  add(pos: number): boolean {
    const last = this.#ends.length - 1;
    // The common case: the next line after the last one sent.
    if (last >= 0 && this.#ends[last] === pos) {
      this.#ends[last] = pos + 1;
      return true;
    }
    if (last >= 0 && pos >= (this.#starts[last] ?? 0) && pos < (this.#ends[last] ?? 0)) return false;
    const index = this.#firstEndingAfter(pos);
    const start = this.#starts[index];
    if (start !== undefined && start <= pos) return false;
    this.#starts.splice(index, 0, pos);
    this.#ends.splice(index, 0, pos + 1);
    this.#mergeAround(index);
    return true;
  }

  /**
   * Records the `count` positions from `first` on when they come right after the last one recorded,
   * or when none is (live lines, in one step); false, recording nothing, otherwise.
   */
  addRun(first: number, count: number): boolean {
    const last = this.#ends.length - 1;
    if (last < 0) {
      this.#starts.push(first);
      this.#ends.push(first + count);
      return true;
    }
    if (this.#ends[last] !== first) return false;
    this.#ends[last] = first + count;
    return true;
  }

  /** True when every position from 0 to `last` was recorded (always for `last` −1). */
  hasAllUpTo(last: number): boolean {
    return last < 0 || (this.#starts[0] === 0 && (this.#ends[0] ?? 0) > last);
  }

  /** How many separate ranges are held (for tests: in-order lines keep it at one). */
  get ranges(): number {
    return this.#starts.length;
  }

  /** The index of the first range whose end is past `pos`: where `pos` is or would go. */
  #firstEndingAfter(pos: number): number {
    let low = 0;
    let high = this.#ends.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.#ends[middle] ?? 0) <= pos) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Joins range `index` with its neighbours when they now touch. */
  #mergeAround(index: number): void {
    const next = index + 1;
    if (this.#starts[next] === this.#ends[index]) {
      this.#ends[index] = this.#ends[next] ?? 0;
      this.#starts.splice(next, 1);
      this.#ends.splice(next, 1);
    }
    const previous = index - 1;
    if (previous >= 0 && this.#ends[previous] === this.#starts[index]) {
      this.#ends[previous] = this.#ends[index] ?? 0;
      this.#starts.splice(index, 1);
      this.#ends.splice(index, 1);
    }
  }
}
