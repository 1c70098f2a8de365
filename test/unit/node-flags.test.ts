// The V8 flags of the server's processes (src/nodeFlags.ts) are given wherever a server process
// starts from a command line we ship: `npm start` and the systemd units of cluster/README.md.
// (The cluster launcher and the benchmark take them from the module itself.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../src/nodeFlags.js';

describe('the server processes’ node flags', () => {
  it('are on the command line of npm start and of the cluster’s systemd units', () => {
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
    expect(start).toContain(`node ${SERVER_NODE_FLAGS.join(' ')} dist/src/main.js`);
    const units = readFileSync('cluster/README.md', 'utf8').split('\n').filter((l) => l.startsWith('ExecStart='));
    expect(units.length).toBeGreaterThan(1);
    for (const line of units) expect(line).toContain(`node ${SERVER_NODE_FLAGS.join(' ')} dist/cluster/main.js`);
  });
});
