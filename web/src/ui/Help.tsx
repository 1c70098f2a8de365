// The keyboard shortcuts, as Zulip's web app has them.
import { Dialog } from './Dialog';

export const SHORTCUTS: [string, string][] = [
  ['/', 'Search'],
  ['c', 'New message in a channel'],
  ['x', 'New direct message'],
  ['r or Enter', 'Reply to the selected message'],
  ['j / k or ↓ / ↑', 'Next / previous message'],
  ['End / Home', 'Last / first message'],
  ['n', 'Next unread topic'],
  ['e', 'Edit the selected message'],
  ['s', 'Star or unstar the selected message'],
  ['+', 'React with 👍 to the selected message'],
  [':', 'Add a reaction to the selected message'],
  ['u', 'Mark the selected message unread'],
  ['Escape', 'Close, or go to all messages'],
  ['?', 'This list'],
];

export function Help() {
  return (
    <Dialog title="Keyboard shortcuts">
      <table class="shortcuts">
        <tbody>
          {SHORTCUTS.map(([key, what]) => (
            <tr key={key}>
              <th scope="row">
                <kbd>{key}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
