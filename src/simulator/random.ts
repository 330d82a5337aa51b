/**
 * The simulator's seedable randomness: a small, fast generator, the streams one seed splits into,
 * and the draws the generated estate and the churn make from a stream. The same seed draws the
 * same values, so an estate is a function of its seed.
 */

/** mulberry32: a small, fast, seedable PRNG; returns floats in [0, 1). */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Helpers over one PRNG stream. */
export class Dice {
  constructor(
    readonly next: () => number,
    /** Uuids drawn so far by every Dice sharing the set; `uuid()` never repeats one. */
    private readonly drawn: Set<string> = new Set(),
  ) {}

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += ((this.next() * 4294967296) >>> 0).toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  /** 32 lowercase hexadecimal characters. */
  uuid(): string {
    let uuid = this.hex(32);
    while (this.drawn.has(uuid)) uuid = this.hex(32);
    this.drawn.add(uuid);
    return uuid;
  }

  mac(): string {
    const bytes = ['fa'];
    for (let i = 0; i < 5; i++) bytes.push(this.hex(2));
    return bytes.join(':');
  }
}

/** Decorrelates the streams of one seed (mulberry32 streams of nearby seeds are shifted copies). */
export function mixSeed(seed: number, stream: number): number {
  let h = Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(stream + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}
