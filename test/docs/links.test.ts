/**
 * Every relative link of the README and of `docs/` leads somewhere: the file (or folder) exists in
 * the repository, and a `#anchor` names a heading of the page it points at, as the repository host
 * slugs headings (GitHub: lowercase, punctuation dropped, spaces to hyphens, `-1`, `-2` for
 * repeats). External links (`https:`, `mailto:`) are not followed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name));
  return [join(ROOT, 'README.md'), ...docs].sort();
}

/** The text of a page without what renders no link: fenced code, inline code, HTML comments. */
function withoutCode(text: string): string {
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/(`+)[\s\S]*?\1/g, '');
}

/** The destinations of a page's inline links and images: `[text](target)`, `[text](target "title")`. */
function linkTargets(text: string): string[] {
  return [...withoutCode(text).matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] ?? '');
}

/** A heading's anchor as GitHub makes it: from its text as rendered, lowercase, punctuation dropped. */
function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/\*\*|__|\*/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings (ATX style), repeats numbered as GitHub numbers them. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const text = readFileSync(file, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading = ''] of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** What is wrong with `target` linked from `file`, or undefined when it resolves. */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart = '', anchor] = target.split('#', 2);
  const path = decodeURIComponent(pathPart);
  if (path.startsWith('/')) return 'a root-relative link (the repository host resolves it elsewhere): write it relative to the page';
  const destination = path === '' ? file : resolve(dirname(file), path);
  const fromRoot = relative(ROOT, destination);
  if (fromRoot.startsWith('..')) return 'leads outside the repository';
  if (!existsSync(destination)) return `${fromRoot} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(destination).isDirectory() || !destination.endsWith('.md')) return `#${anchor} on something that is not a page`;
  return anchorsOf(destination).has(anchor) ? undefined : `${fromRoot} has no heading #${anchor}`;
}

describe('the links of the README and docs/', () => {
  const files = markdownFiles();

  it('finds the pages and their links', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap((file) => linkTargets(readFileSync(file, 'utf8'))).length).toBeGreaterThan(200);
  });

  it('slugs headings as GitHub does', () => {
    expect(slug('A write, followed over SSE')).toBe('a-write-followed-over-sse');
    expect(slug('`@defer` and `@stream`')).toBe('defer-and-stream');
    expect(slug("A mutation's `userErrors[].code` (`UserErrorCode`)")).toBe('a-mutations-usererrorscode-usererrorcode');
    expect(slug('Logs, metrics and tracing')).toBe('logs-metrics-and-tracing');
    expect(slug('The bench (`npm run bench`)')).toBe('the-bench-npm-run-bench');
    expect(slug('MAX_DEPTH and [limits](x.md)')).toBe('max_depth-and-limits');
  });

  it('lead to a file of the repository, and to a heading of it where they name one', () => {
    const broken = files.flatMap((file) =>
      linkTargets(readFileSync(file, 'utf8'))
        .map((target) => ({ target, problem: brokenLink(file, target) }))
        .filter(({ problem }) => problem !== undefined)
        .map(({ target, problem }) => `${relative(ROOT, file)}: (${target}) ${problem}`),
    );
    expect(broken).toEqual([]);
  });
});
