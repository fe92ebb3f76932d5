/**
 * The lenders page's script (src/pages/rates/lenders.astro). The page lists every lender in one
 * open group per first letter, which is all a page without script needs. With it:
 * - on a phone the groups start folded, so that the page is its index of letters: a letter of the
 *   index, or the address's #letter, opens its group;
 * - the filter, built hidden, shows itself and, as a name is typed, keeps the entries any of whose
 *   names contains it (letters compared without case or accents), opening the groups that keep
 *   one and hiding the others, and says how many are shown; emptied, the groups are as they were.
 */

const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

/** The width up to which the page's style lays a lender out as a phone's two lines. */
const PHONE = '(max-width: 40rem)';

function setUp(groups: HTMLDetailsElement[]): void {
  const opened = (id: string) => {
    const group = groups.find((g) => g.id === id);
    if (group) group.open = true;
  };
  if (window.matchMedia(PHONE).matches) for (const group of groups) group.open = false;
  opened(decodeURIComponent(location.hash.slice(1)));
  window.addEventListener('hashchange', () => opened(decodeURIComponent(location.hash.slice(1))));
  // A letter tapped again (no hash change) opens its group too.
  for (const link of document.querySelectorAll<HTMLAnchorElement>('.letter-index a'))
    link.addEventListener('click', () => opened(decodeURIComponent(link.hash.slice(1))));

  const form = document.querySelector<HTMLFormElement>('form.lenders-filter');
  const input = form?.querySelector<HTMLInputElement>('input');
  const status = form?.querySelector<HTMLElement>('.lenders-filter-status');
  const none = document.querySelector<HTMLElement>('.lenders-none');
  if (!form || !input || !status) return;
  const entries = groups.map((group) => ({
    group,
    rows: [...group.querySelectorAll<HTMLTableRowElement>('tr[data-names]')].map((row) => ({
      row,
      names: fold(row.dataset.names!),
    })),
  }));
  const total = entries.reduce((n, e) => n + e.rows.length, 0);
  /** Which groups were open when the filtering began, to fold them back when it ends. */
  let before: boolean[] | undefined;
  const update = () => {
    const wanted = fold(input.value);
    if (wanted !== '' && !before) before = groups.map((g) => g.open);
    let shown = 0;
    entries.forEach(({ group, rows }, i) => {
      let left = 0;
      for (const { row, names } of rows) {
        const keep = wanted === '' || names.includes(wanted);
        row.hidden = !keep;
        if (keep) left++;
      }
      group.hidden = left === 0;
      if (wanted !== '') group.open = left > 0;
      else if (before) group.open = before[i]!;
      shown += left;
    });
    if (wanted === '') before = undefined;
    if (none) none.hidden = shown > 0;
    status.textContent = wanted === '' ? '' : `${shown} of ${total} lenders.`;
  };
  form.addEventListener('input', update);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    update();
  });
  form.hidden = false;
}

const groups = [...document.querySelectorAll<HTMLDetailsElement>('details.letter-group')];
if (groups.length > 0) setUp(groups);
