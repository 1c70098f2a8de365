// The message bodies the render workload renders: Zulip's Markdown conformance inputs
// (test/fixtures/markdown-cases.json) plus generated everyday chat messages, and the
// realm context they render in (a few hundred users, so mentions resolve).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RenderContext, RenderUser } from '../../src/render/types.js';
import { REPO_ROOT } from '../lib/server.js';

const FIRST = ['Ada', 'Ben', 'Chloé', 'Dmitri', 'Emma', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kavya', 'Liam', 'Mei', 'Noah', 'Olga', 'Pablo', 'Quinn', 'Rosa', 'Sven', 'Tariq'];
const LAST = ['Andersen', 'Brown', 'Costa', 'Dubois', 'Evans', 'Fischer', 'García', 'Hansen', 'Ito', 'Jensen', 'Kowalski', 'López', 'Müller', 'Nakamura', 'Okafor'];
const CHANNELS = ['general', 'engineering', 'design', 'ops', 'random', 'announcements', 'support', 'releases'];
const TOPICS = ['deploy', 'standup', 'lunch', 'incident 42', 'release notes', 'onboarding'];
const EMOJI = [':smile:', ':thumbs_up:', ':tada:', ':heart:', ':octopus:', ':rocket:', ':eyes:', ':green_tick:', ':check:', ':+1:'];
const WORDS = 'the build is green again after we reverted the flaky test could you take a look at this before lunch I think the cache needs a restart thanks for the quick fix looks good to me'.split(' ');

/** A small deterministic PRNG, so every run renders the same corpus. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

export function benchUsers(count: number): RenderUser[] {
  return Array.from({ length: count }, (_, i) => ({
    id: 100 + i,
    full_name: `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}${i >= FIRST.length * LAST.length ? ` ${i}` : ''}`,
    is_active: i % 50 !== 49,
  }));
}

/** The realm every corpus message renders in; mirrors what a realm actor hands the pool. */
export function benchContext(users: number): RenderContext {
  return {
    realmUrl: 'https://bench.example.com',
    users: benchUsers(users),
    userGroups: [
      { id: 1, name: 'backend', is_system_group: false, description: 'Backend team' },
      { id: 2, name: 'frontend', is_system_group: false, description: 'Frontend team' },
      { id: 3, name: 'role:administrators', is_system_group: true, description: 'Administrators' },
    ],
    channels: CHANNELS.map((name, i) => ({ id: i + 1, name, topicLatestMessageIds: Object.fromEntries(TOPICS.map((t, j) => [t, 1000 + i * 10 + j])) })),
    realmEmoji: [{ id: 1, name: 'green_tick', source_url: '/user_avatars/1/emoji/images/1.png', deactivated: false }],
    linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/example/project/issues/{id}' }],
    translateEmoticons: false,
    defaultCodeBlockLanguage: null,
  };
}

interface CaseFile {
  regular_tests: Array<{ input: string }>;
  linkify_tests: Array<[string, string, string]>;
}

/** Inputs of the conformance fixture (edge cases of every syntax Zulip supports). */
export function fixtureInputs(): string[] {
  const file = path.join(REPO_ROOT, 'test', 'fixtures', 'markdown-cases.json');
  const cases = JSON.parse(readFileSync(file, 'utf8')) as CaseFile;
  return [...cases.regular_tests.map((c) => c.input), ...cases.linkify_tests.map((c) => c[0])].filter((s) => s.length > 0);
}

/** Generated chat messages in roughly the mix a busy realm sees: mostly short text. */
export function chatMessages(count: number, users: RenderUser[], seed = 1): string[] {
  const rand = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const user = () => pick(users);
  const kinds: Array<() => string> = [
    () => words(4 + Math.floor(rand() * 12)),
    () => `${words(3)} ${pick(EMOJI)}`,
    () => `@**${user().full_name}** ${words(6)}?`,
    () => `@**${user().full_name}** @**${user().full_name}** ${words(5)} @*backend*`,
    () => `@_**${user().full_name}** said ${words(4)} :thumbs_up: 👍`,
    () => `see #**${pick(CHANNELS)}>${pick(TOPICS)}** and #**${pick(CHANNELS)}** for ${words(3)}`,
    () => `${words(5)}: https://example.com/docs/${Math.floor(rand() * 1000)}?tab=${pick(WORDS)} and [the runbook](https://wiki.example.com/ops/${pick(WORDS)})`,
    () => `fixed in #${Math.floor(rand() * 5000)}, **${words(2)}** _${words(3)}_ \`${pick(WORDS)}()\``,
    () => `${words(4)}:\n\`\`\`python\ndef handler(event):\n    if event["type"] == "message":\n        return render(event["content"])\n    return None\n\`\`\`\n${words(3)}`,
    () => `\`\`\`\n$ npm run build\n> tsc -p tsconfig.json\nerror TS2322: Type 'string' is not assignable\n\`\`\``,
    () => `> ${words(8)}\n\n${words(5)} @**${user().full_name}|${user().id}**`,
    () => `${words(3)}:\n- ${words(4)}\n- ${words(3)} ${pick(EMOJI)}\n- [x] ${words(2)}\n\n1. ${words(3)}\n2. ${words(4)}`,
    () => `/me ${words(5)}`,
    () => `@**all** ${words(7)} <time:2026-11-23T10:00:00Z>`,
  ];
  // Plain text four times as often as any other kind.
  const weights = [8, 3, 3, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1];
  const table = kinds.flatMap((k, i) => Array<() => string>(weights[i]).fill(k));
  return Array.from({ length: count }, () => pick(table)());
}
