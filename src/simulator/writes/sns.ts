/**
 * Notification (SNS) write operations: platform state, HTTP endpoint update, SMS receiver removal.
 */
import { SimError, errorCode } from '../errors.js';
import type { SnsApplicationEndpoint } from '../model.js';
import { SNS_ENDPOINT_WIRE, SNS_PLATFORM_WIRE } from '../wire.js';
import { invalidArgument } from './arguments.js';
import { find, inventoryResult, notFound, type Result, type WriteContext } from './context.js';

export function changeSnsApplicationPlatformState(context: WriteContext): Result {
  const { args, store, now } = context;
  const platform = find(context, 'snsPlatform', args.required('uuid'));
  store.snsPlatforms.update(platform, { state: args.required('stateEvent') === 'enable' ? 'Enabled' : 'Disabled', lastOpDate: now });
  return inventoryResult(store.wire.write(SNS_PLATFORM_WIRE, platform));
}

function findEndpoint(context: WriteContext, uuid: string, type: SnsApplicationEndpoint['type']): SnsApplicationEndpoint {
  const endpoint = context.store.snsEndpoints.get(context.tenant.id, uuid);
  // Each path names one kind of endpoint: another kind with this uuid is not found there.
  if (endpoint === undefined || endpoint.type !== type) throw notFound(`SNS ${type} endpoint`, uuid);
  return endpoint;
}

export function updateSnsHttpEndpoint(context: WriteContext): Result {
  const { args, store, now } = context;
  const endpoint = findEndpoint(context, args.required('uuid'), 'HTTP');
  const url = args.text('url');
  if (url !== undefined && !isHttpUrl(url)) throw invalidArgument(`url[${url}] is not an http or https URL`);
  const name = args.text('name');
  if (name !== undefined && name.trim() === '') throw invalidArgument('name must not be empty');
  const patch: Partial<SnsApplicationEndpoint> = { lastOpDate: now };
  if (url !== undefined) patch.url = url;
  if (name !== undefined) patch.name = name;
  const description = args.text('description');
  if (description !== undefined) patch.description = description;
  const username = args.text('username');
  if (username !== undefined) patch.username = username;
  const password = args.text('password');
  if (password !== undefined) patch.password = password;
  store.snsEndpoints.update(endpoint, patch);
  return inventoryResult(store.wire.write(SNS_ENDPOINT_WIRE, endpoint));
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function removeSnsSmsReceiver(context: WriteContext): Result {
  const { args, store, now } = context;
  const endpoint = findEndpoint(context, args.required('endpointUuid'), 'SMS');
  const phoneNumber = args.required('phoneNumber');
  if (!endpoint.receivers.includes(phoneNumber)) {
    throw new SimError(
      errorCode('SYS.1003', 'Unable to find resource', `SMS endpoint[uuid:${endpoint.uuid}] has no receiver ${phoneNumber}`),
    );
  }
  store.snsEndpoints.update(endpoint, {
    receivers: endpoint.receivers.filter((receiver) => receiver !== phoneNumber),
    lastOpDate: now,
  });
  return {};
}
