/**
 * The services of a tenant's generated estate: notification platforms, endpoints and email
 * addresses, and each zone's directory tree.
 */
import type { SnsApplicationEndpoint, SnsApplicationPlatform } from '../model.js';
import type { TenantDraft } from './draft.js';

export function buildSns(draft: TenantDraft): void {
  const { dice, tenant, store } = draft;
  const platformSpecs: [string, string][] = [
    ['system-http', 'HTTP'],
    ['email-notify', 'Email'],
    ['sms-aliyun', 'SMS'],
  ];
  const platforms = new Map<string, SnsApplicationPlatform>();
  for (const [name, type] of platformSpecs) {
    platforms.set(
      type,
      store.snsPlatforms.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name,
        description: `${type} notification platform`,
        type,
        state: 'Enabled',
        ...draft.times(),
      }),
    );
  }
  const endpointSpecs: [string, SnsApplicationEndpoint['type']][] = [
    ['ops-webhook', 'HTTP'],
    ['pager-webhook', 'HTTP'],
    ['ops-mail', 'Email'],
    ['finance-mail', 'Email'],
    ['oncall-sms', 'SMS'],
    ['manager-sms', 'SMS'],
  ];
  for (const [name, type] of endpointSpecs) {
    const platform = platforms.get(type) as SnsApplicationPlatform;
    const endpoint = store.snsEndpoints.insert({
      uuid: dice.uuid(),
      tenantId: tenant.id,
      name,
      description: null,
      type,
      platformUuid: platform.uuid,
      state: 'Enabled',
      url: type === 'HTTP' ? `https://alerts.example.com/hooks/${name}` : null,
      username: type === 'HTTP' ? 'alertbot' : null,
      password: type === 'HTTP' ? dice.hex(16) : null,
      receivers:
        type === 'SMS' ? Array.from({ length: dice.int(2, 3) }, () => `+86138${dice.int(10000000, 99999999)}`) : [],
      ...draft.times(platform.createDate.getTime()),
    });
    if (type === 'Email') {
      for (let a = 0; a < dice.int(2, 3); a++) {
        store.snsEmails.insert({
          uuid: dice.uuid(),
          tenantId: tenant.id,
          emailAddress: `${name.split('-')[0]}${a + 1}@example.com`,
          endpointUuid: endpoint.uuid,
          ...draft.times(endpoint.createDate.getTime()),
        });
      }
    }
  }
}

export function buildDirectories(draft: TenantDraft): void {
  const { dice, tenant, store } = draft;
  for (const zone of draft.zones) {
    const root = store.directories.insert({
      uuid: dice.uuid(),
      tenantId: tenant.id,
      name: `${zone.name}-root`,
      groupName: 'default',
      parentUuid: null,
      zoneUuid: zone.uuid,
      type: 'vminstance',
      ...draft.times(zone.createDate.getTime()),
    });
    for (const child of ['production', 'staging', 'archive']) {
      store.directories.insert({
        uuid: dice.uuid(),
        tenantId: tenant.id,
        name: child,
        groupName: 'default',
        parentUuid: root.uuid,
        zoneUuid: zone.uuid,
        type: 'vminstance',
        ...draft.times(root.createDate.getTime()),
      });
    }
  }
}
