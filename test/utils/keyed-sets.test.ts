import { describe, expect, it } from 'vitest';
import { joinKeyedSet } from '../../src/utils/keyed-sets.js';

describe('joinKeyedSet', () => {
  it('keeps members by key and forgets a key with its last member', () => {
    const sets = new Map<string, Set<string>>();
    const leaveA = joinKeyedSet(sets, 'owner', 'a');
    const leaveB = joinKeyedSet(sets, 'owner', 'b');
    expect([...(sets.get('owner') ?? [])]).toEqual(['a', 'b']);
    leaveA();
    expect([...(sets.get('owner') ?? [])]).toEqual(['b']);
    leaveB();
    expect(sets.has('owner')).toBe(false);
  });

  it('a late leave does not remove the set a newer member made for the same key', () => {
    const sets = new Map<string, Set<string>>();
    const leaveOld = joinKeyedSet(sets, 'topic', 'old');
    leaveOld();
    joinKeyedSet(sets, 'topic', 'new');
    leaveOld();
    expect([...(sets.get('topic') ?? [])]).toEqual(['new']);
  });
});
