/**
 * Micro-bench of record decoding: the simulator's 50-VM page (VMs with their NICs, used IPs,
 * volumes and CD-ROMs) and a page of 50 hosts, decoded whole and with the dashboard's demand.
 * About 500 records per dashboard: the decoders are on the gateway's hot path.
 *
 * `node --import tsx bench/decode.ts` (no server of the gateway's runs; the simulator serves
 * the wire JSON once, then only decoding is timed).
 */
import { parse } from 'graphql';
import { DASHBOARD_QUERY } from './dashboard.js';
import { recordDemandOf } from '../src/execution/record-demand.js';
import { schema } from '../src/schema/index.js';
import { createSimulator } from '../src/simulator/server.js';
import { RecordDecoder } from '../src/upstream/decode.js';

const ROUNDS = Number(process.argv[2] ?? 4000);

async function fetchPage(url: string, token: string, tenantId: string, resourceType: string): Promise<unknown[]> {
  const response = await fetch(`${url}/api/v1/resources/cursor-query?resourceType=${resourceType}&pageSize=50`, {
    headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId },
  });
  const body = (await response.json()) as { items?: unknown[] };
  if (!Array.isArray(body.items)) throw new Error(`no items for ${resourceType}: ${JSON.stringify(body).slice(0, 200)}`);
  return body.items;
}

function time(label: string, run: () => void): number {
  for (let i = 0; i < ROUNDS / 4; i++) run(); // warm up: let the decoders reach their optimized tier
  const start = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) run();
  const perRound = Number(process.hrtime.bigint() - start) / ROUNDS / 1000;
  console.log(`${label.padEnd(34)} ${perRound.toFixed(1).padStart(7)} µs per page`);
  return perRound;
}

const simulator = createSimulator({ vms: 200, hosts: 50 });
const url = await simulator.start(0, '127.0.0.1');
const { token, tenantId } = simulator.credentials;
const vms = await fetchPage(url, token, tenantId, 'vm');
const hosts = await fetchPage(url, token, tenantId, 'host');
await simulator.stop();

const decoder = new RecordDecoder('UTC');
const dashboard = decoder.withDemand(recordDemandOf(schema, parse(DASHBOARD_QUERY)));
let sink = 0;
const decodePage = (d: RecordDecoder) => () => {
  sink += d.list(vms, 'items', d.vmInstance).length + d.list(hosts, 'items', d.host).length;
};
console.log(`${vms.length} VMs, ${hosts.length} hosts, ${ROUNDS} rounds`);
for (let repeat = 0; repeat < 3; repeat++) {
  time('full records', decodePage(decoder));
  time('dashboard demand', decodePage(dashboard));
}
if (sink === 0) console.log('nothing decoded');
