import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/process.js';

describe('npm run simulator', () => {
  it('prints one JSON line with the url and both tenants’ credentials, and serves them (cursors living SIM_CURSOR_TTL_MS)', async () => {
    const child = spawn('npx', ['tsx', 'src/simulator/main.ts'], {
      env: { ...process.env, PORT: '0', SIM_VMS: '30', SIM_SESSION: 'fe'.repeat(16), SIM_CURSOR_TTL_MS: '300' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so that SIGTERM reaches npx, tsx and the simulator alike.
      detached: true,
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let url = '';
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout });
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`simulator exited with ${String(code)}`)));
      });
      const printed = JSON.parse(line) as Record<string, unknown>;
      url = printed.url as string;
      expect(Object.keys(printed).sort()).toEqual(['second', 'session', 'tenantId', 'token', 'url']);
      expect(printed.session).toBe('fe'.repeat(16));
      expect(printed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const second = printed.second as Record<string, unknown>;
      expect(Object.keys(second).sort()).toEqual(['session', 'tenantId', 'token']);
      expect(second.tenantId).not.toBe(printed.tenantId);

      const response = await fetch(`${printed.url as string}/api/v1/resources/cursor-query?resourceType=vm`, {
        headers: { authorization: `Bearer ${printed.token as string}`, 'x-tenant-id': printed.tenantId as string },
      });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { total: number; nextCursor: string };
      expect(page.total).toBe(30);
      // SIM_CURSOR_TTL_MS: its cursors expire after 300 ms.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const expired = await fetch(`${printed.url as string}/api/v1/resources/cursor-next?cursor=${page.nextCursor}`, {
        headers: { authorization: `Bearer ${printed.token as string}`, 'x-tenant-id': printed.tenantId as string },
      });
      expect(expired.status).toBe(400);
      expect(await expired.text()).toMatch(/expired/);
      const resource = await fetch(`${printed.url as string}/svc/v1/cbt-task`, {
        headers: { authorization: `OAuth ${second.session as string}` },
      });
      expect(resource.status).toBe(200);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
    await exited;
    // The simulator itself (not just npx) must stop: its port stops answering (npx may exit a
    // moment before the node process it ran has closed its server).
    await eventually(
      () =>
        fetch(`${url}/__sim/stats`).then(
          async (response) => (await response.arrayBuffer(), false),
          () => true,
        ),
      'the simulator to stop answering after SIGTERM',
      100,
    );
  });
});
