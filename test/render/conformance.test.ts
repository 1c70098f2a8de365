import { describe, expect, test } from 'vitest';
import { runLinkifyCases, runRegularCases } from './conformance-cases.js';

describe('Zulip Markdown conformance cases', () => {
  test('at least 90% of regular and linkify cases render as Zulip does', () => {
    const outcomes = [...runRegularCases(), ...runLinkifyCases()];
    const failed = outcomes.filter((o) => !o.passed);
    const rate = (outcomes.length - failed.length) / outcomes.length;
    if (failed.length > 0) {
      console.log(
        `conformance: ${outcomes.length - failed.length}/${outcomes.length} passed; failing:\n` +
          failed.map((f) => `  ${f.name}\n    expected ${JSON.stringify(f.expected)}\n    actual   ${JSON.stringify(f.actual)}`).join('\n'),
      );
    }
    expect(outcomes.length).toBeGreaterThan(150);
    expect(rate).toBeGreaterThanOrEqual(0.9);
  });
});
