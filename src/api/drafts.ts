// Drafts synchronized between a user's devices; saved snippets; navigation views.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { createDrafts, deleteDraft, editDraft } from '../actions/later/drafts.js';
import { createSavedSnippet, deleteSavedSnippet, editSavedSnippet } from '../actions/later/savedSnippets.js';
import { addNavigationView, editNavigationView, removeNavigationView } from '../actions/later/navigationViews.js';
import { checkDraftsSynchronized, listDrafts, listNavigationViews, listSavedSnippets } from '../queries/later.js';
import { MAX_SAVED_SNIPPET_TITLE_LENGTH } from '../model/later.js';
import { MAX_MESSAGE_LENGTH } from '../model/limits.js';
import { draftListParam, draftParam, trimmedString } from './laterParams.js';

export const draftEndpoints = [
  endpoint({
    method: 'GET',
    path: '/drafts',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      checkDraftsSynchronized(user);
      const drafts = await listDrafts(actor, user, false);
      return { count: drafts.length, drafts };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/drafts',
    auth: 'user',
    params: { drafts: draftListParam('drafts') },
    async handler({ actor, user, args }) {
      return { ids: await createDrafts(actor, user, args.drafts) };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/drafts/{draft_id}',
    auth: 'user',
    params: { draft_id: p.int(), draft: draftParam('draft') },
    async handler({ actor, user, args }) {
      await editDraft(actor, user, args.draft_id, args.draft);
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/drafts/{draft_id}',
    auth: 'user',
    params: { draft_id: p.int() },
    async handler({ actor, user, args }) {
      await deleteDraft(actor, user, args.draft_id);
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/saved_snippets',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      return { saved_snippets: await listSavedSnippets(actor, user) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/saved_snippets',
    auth: 'user',
    params: { title: trimmedString('title', MAX_SAVED_SNIPPET_TITLE_LENGTH), content: trimmedString('content', MAX_MESSAGE_LENGTH) },
    async handler({ actor, user, args }) {
      return { saved_snippet_id: await createSavedSnippet(actor, user, args.title, args.content) };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/saved_snippets/{saved_snippet_id}',
    auth: 'user',
    params: {
      saved_snippet_id: p.int(),
      title: trimmedString('title', MAX_SAVED_SNIPPET_TITLE_LENGTH).optional(),
      content: trimmedString('content', MAX_MESSAGE_LENGTH).optional(),
    },
    async handler({ actor, user, args }) {
      await editSavedSnippet(actor, user, args.saved_snippet_id, { title: args.title, content: args.content });
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/saved_snippets/{saved_snippet_id}',
    auth: 'user',
    params: { saved_snippet_id: p.int() },
    async handler({ actor, user, args }) {
      await deleteSavedSnippet(actor, user, args.saved_snippet_id);
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/navigation_views',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      return { navigation_views: await listNavigationViews(actor, user) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/navigation_views',
    auth: 'user',
    params: { fragment: trimmedString('fragment'), is_pinned: p.bool(), name: trimmedString('name').optional() },
    async handler({ actor, user, args }) {
      await addNavigationView(actor, user, { fragment: args.fragment, isPinned: args.is_pinned, name: args.name });
      return {};
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/navigation_views/{fragment+}',
    auth: 'user',
    params: { fragment: p.string(), is_pinned: p.bool().optional(), name: trimmedString('name').optional() },
    async handler({ actor, user, args }) {
      await editNavigationView(actor, user, args.fragment, { isPinned: args.is_pinned, name: args.name });
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/navigation_views/{fragment+}',
    auth: 'user',
    params: { fragment: p.string() },
    async handler({ actor, user, args }) {
      await removeNavigationView(actor, user, args.fragment);
      return {};
    },
  }),
];
