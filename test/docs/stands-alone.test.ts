/**
 * The repository stands alone: nothing in it justifies itself by a document a clone does not have.
 * What the code relies on is in its own docs (the API's promise, the upstream's behaviour beyond
 * the spec); comments point there. So no tracked file names a file outside the repository.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The documents the project was once written against, spelt so that this file does not name them. */
const OUTSIDE = [['CON', 'TRACT'], ['UPSTREAM', '-NOTES'], ['../', 'shared'], ['STY', 'LE.md']].map((parts) => parts.join(''));

function trackedTextFiles(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  return files.filter((file) => !/\.(png|jpe?g|gif|ico|woff2?|gz|zip)$/i.test(file));
}

describe('the repository', () => {
  it('names no document outside it', () => {
    const naming = trackedTextFiles().flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return OUTSIDE.filter((name) => text.includes(name)).map((name) => `${file}: ${name}`);
    });
    expect(naming).toEqual([]);
  });
});
