/**
 * The environment knobs of the bench and the soak (developer tools, not the gateway: its
 * configuration is `src/config/index.ts`).
 */

/** A non-negative number from `process.env[name]`; `fallback` when unset or blank. Throws on anything else. */
export function numberFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${text}"`);
  return value;
}
