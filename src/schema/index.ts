/**
 * The whole schema: each module registers its types, queries and mutations on the builder for
 * its side effects; this file only orders the imports and builds.
 */
import { builder } from '../builder.js';
import './scalars.js';
import './errors.js';
import './connection-fields.js';
import './mutation-kit.js';
import './job.js';
import './node.js';
import './host.js';
import './storage-device.js';
import './vm-instance.js';
import './volume.js';
import './volume-snapshot-group.js';
import './cbt-task.js';
import './sns.js';
import './directory.js';
import './primary-storage.js';

export const schema = builder.toSchema({ sortSchema: true });
