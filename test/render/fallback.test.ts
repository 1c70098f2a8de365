import { afterEach, expect, test, vi } from 'vitest';

afterEach(() => {
  vi.doUnmock('../../src/render/tokenizer.js');
  vi.resetModules();
});

test('if the parser throws (e.g. stack overflow), the message is escaped text in a paragraph', async () => {
  vi.resetModules();
  vi.doMock('../../src/render/tokenizer.js', () => ({
    lexZulipMarkdown: () => {
      throw new RangeError('Maximum call stack size exceeded');
    },
  }));
  const { renderMarkdown } = await import('../../src/render/markdown.js');
  const result = renderMarkdown('<b>hi</b> @**King Hamlet**', {
    realmUrl: 'https://chat.example.com',
    users: [{ id: 10, full_name: 'King Hamlet', is_active: true }],
  });
  expect(result.html).toBe('<p>&lt;b&gt;hi&lt;/b&gt; @**King Hamlet**</p>');
  expect(result.mentionedUserIds).toEqual([]);
});
