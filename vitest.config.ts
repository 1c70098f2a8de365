import { configDefaults, defineConfig } from 'vitest/config';

// Tests whose server sweeps the shared test database for other servers' work (a fast email
// sweep) run alone, after the rest: in production one deployment owns its database, here
// several test servers share one.
const ALONE = ['test/api/email-restart.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...ALONE] } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
