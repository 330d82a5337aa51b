/**
 * The spec's "Since" values, read from the spec's own text (`test/fixtures/spec.txt`, a copy of
 * the spec committed with the tests), never from the code: the record tables with a Since column,
 * the headings and item lines that carry `(since x)`, the operations' `**Name** (since x)` and
 * their parameters' `(..., since x)`. Tests compare the schema the gateway serves with what these
 * allow.
 */
import { readFileSync } from 'node:fs';

/** One dated statement of the spec: record `record` has field `field` since `since`. */
export interface SpecField {
  readonly record: string;
  readonly field: string;
  readonly since: string;
}

export interface SpecOperation {
  readonly name: string;
  readonly method: string;
  readonly since: string;
  /** Parameters the spec dates on their own (`dstHostUuid (String, since 3.10.0)`). */
  readonly params: ReadonlyMap<string, string>;
}

export interface SpecReleases {
  readonly fields: readonly SpecField[];
  /** Closed-set types named in a table's Type column (`HwMonitorStatus`, `CbtTaskStatus`), with the row's release. */
  readonly closedSets: ReadonlyMap<string, string>;
  readonly operations: readonly SpecOperation[];
  /** Every release the spec names. */
  readonly releases: readonly string[];
}

export function readSpecText(): string {
  return readFileSync(new URL('../fixtures/spec.txt', import.meta.url), 'utf8');
}

const SINCE = /\(since (\d+(?:\.\d+)*)[^)]*\)/i;

/** `a, b (String); c (Integer, since 5.1.0)` → each name with its own release, if it says one. */
function parseFieldList(text: string): { name: string; since: string | undefined }[] {
  const names: { name: string; since: string | undefined }[] = [];
  for (const chunk of text.split(';')) {
    const match = /^\s*(.*?)\s*\(([^()]*)\)\s*$/.exec(chunk.trim()) ?? [chunk, chunk.trim(), ''];
    const own = /since (\d+(?:\.\d+)*)/.exec(match[2] ?? '')?.[1];
    for (const name of (match[1] ?? '').split(',')) if (/^\w+$/.test(name.trim())) names.push({ name: name.trim(), since: own });
  }
  return names;
}

/** The list part of an item line: up to the first sentence end (`... (Timestamp). Returned NIC records ...`). */
function listPart(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end);
}

export function parseSpecReleases(text: string = readSpecText()): SpecReleases {
  const fields: SpecField[] = [];
  const closedSets = new Map<string, string>();
  const operations: SpecOperation[] = [];
  const lines = text.split('\n');
  let section = '';
  let heading = '';
  let headingSince: string | undefined;
  let sinceColumn = -1;
  const add = (record: string, field: string, since: string | undefined) => {
    if (since !== undefined) fields.push({ record, field, since });
  };
  for (const line of lines) {
    if (line.startsWith('## ')) {
      section = line.slice(3).trim();
      continue;
    }
    if (line.startsWith('### ')) {
      headingSince = SINCE.exec(line)?.[1];
      heading = line.slice(4).replace(SINCE, '').trim();
      sinceColumn = -1;
      continue;
    }
    if (section === 'Resources and their fields') {
      if (line.startsWith('|')) {
        const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
        if (cells[0] === 'Field') {
          sinceColumn = cells.indexOf('Since');
          continue;
        }
        if (/^-+$/.test(cells[0] ?? '')) continue;
        const since = sinceColumn >= 0 ? cells[sinceColumn] : headingSince;
        for (const name of (cells[0] ?? '').split(',')) add(heading, name.trim(), since);
        const closedSet = /^(\w+Status)\b/.exec(cells[1] ?? '')?.[1];
        if (closedSet !== undefined && since !== undefined) closedSets.set(closedSet, since);
        continue;
      }
      // `Same fields as a vmNics item ... Since 3.9.0, except a, b (since 4.7.13).`
      const same = /^Same fields as a (\w+ item).*?Since (\d+(?:\.\d+)*), except ([\w, ]+) \(since (\d+(?:\.\d+)*)\)/.exec(line);
      if (same) {
        const [, source = '', since = '', except = '', exceptSince = ''] = same;
        const excepted = new Set(except.split(',').map((name) => name.trim()));
        for (const field of fields.filter((candidate) => candidate.record === source)) add(heading, field.field, excepted.has(field.field) ? exceptSince : since);
        continue;
      }
      // `uuid, name, ...: all String` under a dated heading.
      const bare = /^([\w, ]+): all String/.exec(line);
      if (bare) {
        for (const name of (bare[1] ?? '').split(',')) add(heading, name.trim(), headingSince);
        continue;
      }
      // `vmNics item (since 3.17.13): ...`, `- SNSApplicationPlatformInventory (since 2.3): ...`,
      // `Slave NIC record (bond inventory): ...`, `- bondings (List) items: ...`.
      const item = /^(?:- )?([A-Za-z][\w ]*?)(?: \(([^)]*)\))?( items)?: (.+)$/.exec(line);
      if (item) {
        const [, name = '', paren = '', items = '', rest = ''] = item;
        const since = /since (\d+(?:\.\d+)*)/.exec(paren)?.[1] ?? headingSince;
        const record = `${name}${items}`;
        for (const entry of parseFieldList(listPart(rest))) add(record, entry.name, entry.since ?? since);
      }
      continue;
    }
    if (section === 'Endpoints') {
      const operation = /^\*\*(\w+)\*\*(?: \(([^)]*)\))?: `(GET|POST|PUT|DELETE) /.exec(line);
      if (!operation) continue;
      const [, name = '', paren = '', method = ''] = operation;
      const since = /since (\d+(?:\.\d+)*)/.exec(paren)?.[1] ?? headingSince;
      if (since === undefined) throw new Error(`spec: ${name} has no release`);
      const params = new Map<string, string>();
      for (const match of line.matchAll(/(\w+) \([^()]*?\bsince (\d+(?:\.\d+)*)[^()]*\)/g)) params.set(match[1] ?? '', match[2] ?? '');
      operations.push({ name, method, since, params });
    }
  }
  const releases = [...new Set([...fields.map((field) => field.since), ...operations.map((operation) => operation.since), ...closedSets.values()])];
  return { fields, closedSets, operations, releases };
}
