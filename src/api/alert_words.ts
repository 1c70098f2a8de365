// The caller's alert words: list, add, remove. Each answer is the full list.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { addAlertWords, alertWordsOf, removeAlertWords } from '../actions/users/alertWords.js';

export const alertWordEndpoints = [
  endpoint({
    method: 'GET',
    path: '/users/me/alert_words',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      return { alert_words: alertWordsOf(actor, user) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/users/me/alert_words',
    auth: 'user',
    params: { alert_words: p.json(z.array(z.string())) },
    async handler({ actor, user, args }) {
      return { alert_words: await addAlertWords(actor, user, args.alert_words) };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/users/me/alert_words',
    auth: 'user',
    params: { alert_words: p.json(z.array(z.string())) },
    async handler({ actor, user, args }) {
      return { alert_words: await removeAlertWords(actor, user, args.alert_words) };
    },
  }),
];
