/**
 * What the gateway must answer for a simulator record: the expectations several suites share.
 */
import { constantCase } from '../../src/schema/kit/enums.js';
import type { Volume } from '../../src/simulator/model.js';

/** A closed set's wire value as its GraphQL enum answers it (`UserVm` → `USER_VM`). */
export function enumValue(wire: string): string;
export function enumValue(wire: string | null): string | null;
export function enumValue(wire: string | null): string | null {
  return wire === null ? null : constantCase(wire);
}

/**
 * A declaration's description as the schema shows it under a parent (a type, an input type):
 * without the trailing "Since x." its parent already says (`schema/kit/since-once.ts`).
 */
export function shownUnder(description: string | undefined, parentDescription: string | null | undefined): string | undefined {
  const parentSince = / Since [\d.]+\.$/.exec(parentDescription ?? '')?.[0];
  return parentSince !== undefined && description?.endsWith(parentSince) ? description.slice(0, -parentSince.length) : description;
}

/** The wire carries whole seconds: the ISO text the gateway must print for a stored Date. */
export function iso(date: Date | null): string | null {
  return date === null ? null : new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString();
}

export const VOLUME_FIELDS = /* GraphQL */ `
  uuid name description primaryStorageUuid vmInstanceUuid diskOfferingUuid rootImageUuid installPath type format
  state status volumeQos lastVmInstanceUuid size actualSize deviceId isShareable encrypted lastDetachDate createDate lastOpDate
`;

export function expectedVolume(volume: Volume): Record<string, unknown> {
  return {
    uuid: volume.uuid,
    name: volume.name,
    description: volume.description,
    primaryStorageUuid: volume.primaryStorageUuid,
    vmInstanceUuid: volume.vmInstanceUuid,
    diskOfferingUuid: volume.diskOfferingUuid,
    rootImageUuid: volume.rootImageUuid,
    installPath: volume.installPath,
    type: enumValue(volume.type),
    format: enumValue(volume.format),
    state: enumValue(volume.state),
    status: enumValue(volume.status),
    volumeQos: volume.volumeQos,
    lastVmInstanceUuid: volume.lastVmInstanceUuid,
    size: volume.size,
    actualSize: volume.actualSize,
    deviceId: volume.deviceId,
    isShareable: volume.isShareable,
    encrypted: volume.encrypted,
    lastDetachDate: iso(volume.lastDetachDate),
    createDate: iso(volume.createDate),
    lastOpDate: iso(volume.lastOpDate),
  };
}
