// The two least-loaded domains of one constraint. Keeping two (not all) is enough
// because AddPod/RemovePod only ever change the counts of a single node's domains
// between recomputations (preemption evaluates one node per copy of the state);
// the first entry always holds the global minimum.

const MAX_INT32 = 2147483647;

interface Path {
  topologyValue: string;
  matchNum: number;
}

export class CriticalPaths {
  private constructor(private readonly paths: [Path, Path]) {}

  static empty(): CriticalPaths {
    return new CriticalPaths([
      { topologyValue: '', matchNum: MAX_INT32 },
      { topologyValue: '', matchNum: MAX_INT32 },
    ]);
  }

  /** The smallest match count seen (MaxInt32 before any domain was recorded). */
  get minMatchNum(): number {
    return this.paths[0].matchNum;
  }

  /** Records that domain `value` now has `num` matching pods. */
  update(value: string, num: number): void {
    const [first, second] = this.paths;
    const tracked = value === first.topologyValue ? first : value === second.topologyValue ? second : undefined;
    if (tracked) {
      tracked.matchNum = num;
      if (first.matchNum > second.matchNum) this.paths.reverse();
      return;
    }
    if (num < first.matchNum) {
      this.paths[1] = { ...first };
      this.paths[0] = { topologyValue: value, matchNum: num };
    } else if (num < second.matchNum) {
      this.paths[1] = { topologyValue: value, matchNum: num };
    }
  }

  clone(): CriticalPaths {
    return new CriticalPaths([{ ...this.paths[0] }, { ...this.paths[1] }]);
  }

  /** Both entries, for tests and explanations. */
  entries(): readonly Readonly<Path>[] {
    return this.paths;
  }
}
