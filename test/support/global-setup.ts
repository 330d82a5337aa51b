/**
 * Makes sure the system programs the suite needs are installed before any test runs: installs
 * them with apt-get when missing and running as root, otherwise stops with the exact command.
 */
import { execFileSync, spawnSync } from 'node:child_process';

/** program on PATH → Debian package that provides it */
const REQUIRED: Record<string, string> = {
  chromium: 'chromium',
  'redis-server': 'redis-server',
  'redis-cli': 'redis-tools',
  // The dashboard and alert tests run a real Prometheus, and promtool checks and unit-tests the rules.
  prometheus: 'prometheus',
  promtool: 'prometheus',
};

function isInstalled(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

export default function setup(): void {
  const missing = Object.entries(REQUIRED).filter(([program]) => !isInstalled(program));
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map(([, pkg]) => pkg))];
  const command = `apt-get update && apt-get install -y --no-install-recommends ${packages.join(' ')}`;
  if (process.getuid?.() !== 0) {
    throw new Error(`The test suite needs ${packages.join(', ')}. Install with: sudo sh -c '${command}'`);
  }
  process.stderr.write(`installing ${packages.join(', ')} for the test suite...\n`);
  execFileSync('sh', ['-c', command], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}
