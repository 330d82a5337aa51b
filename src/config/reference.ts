/**
 * The configuration reference, `docs/reference/configuration.md`, rendered from the settings table
 * (`settings/`, composed by `index.ts`) and the simulator's: `npm run docs:config` writes it, and
 * a test fails when the committed page is not what this renders.
 */
import { SETTING_GROUPS, settingEntries, simulatorSettingEntries, type Setting, type SettingGroup } from './index.js';

/** Where `npm run docs:config` writes the page, from the repository's root. */
export const CONFIG_REFERENCE_PATH = 'docs/reference/configuration.md';

const INTRODUCTION = `# Configuration reference

<!-- Generated from the settings table of src/config/index.ts by \`npm run docs:config\`: edit the table, not this page. -->

The gateway reads its settings from environment variables once, when it starts (the simulator
too: its settings are the last section). An unset or empty variable takes the default; a value
that is not accepted stops the program at once with an error that names the variable and what it
accepts. A few more rules:

- Durations are in milliseconds and sizes in bytes, written as plain integers (\`30000\`, not \`30s\`).
- Lists are comma-separated; blanks around the commas are ignored.
- \`HEADERS_TIMEOUT_MS\` may not exceed \`REQUEST_TIMEOUT_MS\`.
`;

/** The page: an introduction, then one table per group of settings. */
export function renderConfigReference(): string {
  const byGroup = new Map<SettingGroup, Setting<unknown>[]>();
  for (const [, declaration] of [...settingEntries(), ...simulatorSettingEntries()]) byGroup.set(declaration.group, [...(byGroup.get(declaration.group) ?? []), declaration]);
  const sections = (Object.keys(SETTING_GROUPS) as SettingGroup[])
    .filter((group) => byGroup.has(group))
    .map((group) => renderGroup(group, byGroup.get(group) ?? []));
  return [INTRODUCTION, ...sections].join('\n');
}

function renderGroup(group: SettingGroup, declarations: readonly Setting<unknown>[]): string {
  const { title, about } = SETTING_GROUPS[group];
  const rows = declarations.map((declaration) =>
    row([`\`${declaration.variable}\``, declaration.description, defaultOf(declaration), declaration.parser.accepts]),
  );
  return [`## ${title}`, '', about, '', row(['variable', 'meaning', 'default', 'accepts']), row(['---', '---', '---', '---']), ...rows, ''].join('\n');
}

/** The default cell: what an unset variable means in words, else the default value. */
function defaultOf(declaration: Setting<unknown>): string {
  if (declaration.unset !== undefined) return `unset: ${declaration.unset}`;
  return declaration.parser.show(declaration.default);
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}
