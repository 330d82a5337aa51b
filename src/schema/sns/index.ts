/**
 * Notifications (SNS): application platforms and endpoints (read through the cursor
 * family, the spec gives them no query of their own), email addresses of Email endpoints
 * (QuerySNSEmailAddress), and the writes: platform state, HTTP endpoint update, SMS receiver
 * removal.
 */
import './platforms.js';
import './endpoints.js';
import './email-addresses.js';
import './mutations.js';

export { SnsApplicationEndpointRef } from './endpoints.js';
export { SnsEmailAddressRef } from './email-addresses.js';
export { SnsStateEvent } from './mutations.js';
export { SnsApplicationPlatformRef, SnsEndpointType } from './platforms.js';
