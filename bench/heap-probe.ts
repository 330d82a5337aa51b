/**
 * Bench-only preload (`node --expose-gc --import ./bench/heap-probe.ts`): on SIGUSR2 the
 * process collects garbage and writes `process.memoryUsage()` to `BENCH_HEAP_FILE`, so the
 * benchmark can read live memory without a debug route in the gateway itself.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_HEAP_FILE;
const collect = (globalThis as { gc?: () => void }).gc;

if (file) {
  process.on('SIGUSR2', () => {
    collect?.();
    collect?.();
    writeFileSync(file, JSON.stringify({ at: Date.now(), ...process.memoryUsage() }));
  });
}
