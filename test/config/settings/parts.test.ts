/**
 * The settings table is written in parts (`src/config/settings/`, a module per few sections of
 * the reference page) that `src/config/index.ts` spreads into one table. A spread keeps the last
 * of two settings of one name without a word, and the page lists a section's settings in the
 * table's order: these tests hold the parts to whole sections, in the page's order, each setting
 * once.
 */
import { describe, expect, it } from 'vitest';
import { SETTING_GROUPS, settingEntries, type Setting, type SettingGroup } from '../../../src/config/index.js';
import { admissionSettings } from '../../../src/config/settings/admission.js';
import { performanceSettings } from '../../../src/config/settings/performance.js';
import { redisSettings } from '../../../src/config/settings/redis.js';
import { serverSettings } from '../../../src/config/settings/server.js';
import { subscriptionSettings } from '../../../src/config/settings/subscriptions.js';
import { tracingSettings } from '../../../src/config/settings/tracing.js';
import { upstreamSettings } from '../../../src/config/settings/upstream.js';

/** The parts, in the order `index.ts` composes them. */
const PARTS: Readonly<Record<string, Readonly<Record<string, Setting<unknown>>>>> = {
  server: serverSettings,
  upstream: upstreamSettings,
  redis: redisSettings,
  admission: admissionSettings,
  subscriptions: subscriptionSettings,
  performance: performanceSettings,
  tracing: tracingSettings,
};

const declared = Object.values(PARTS).flatMap((part) => Object.entries(part));

describe('the settings table in parts', () => {
  it('composes every setting of every part, each name and each variable once', () => {
    const names = declared.map(([name]) => name);
    expect(new Set(names).size).toBe(names.length);
    const variables = declared.map(([, { variable }]) => variable);
    expect(new Set(variables).size).toBe(variables.length);
    expect(settingEntries().map(([name]) => name)).toEqual(names);
  });

  it('gives each section of the reference page to one part, and the parts follow the page\'s order of sections', () => {
    const sectionsOf = (part: Readonly<Record<string, Setting<unknown>>>): SettingGroup[] => [...new Set(Object.values(part).map(({ group }) => group))];
    const sections = Object.values(PARTS).flatMap(sectionsOf);
    // A section split over two parts would appear twice here.
    expect(new Set(sections).size).toBe(sections.length);
    const pageOrder = (Object.keys(SETTING_GROUPS) as SettingGroup[]).filter((group) => sections.includes(group));
    expect(sections).toEqual(pageOrder);
  });

  it('keeps a section\'s settings together within its part', () => {
    for (const [name, part] of Object.entries(PARTS)) {
      const groups = Object.values(part).map(({ group }) => group);
      const runs = groups.filter((group, index) => index === 0 || groups[index - 1] !== group);
      expect(runs, name).toEqual([...new Set(groups)]);
    }
  });
});
