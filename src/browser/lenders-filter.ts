/**
 * The lenders page's filter (src/pages/rates/lenders.astro): shows the form built hidden and, as a
 * name is typed, keeps the entries any of whose names contains it (letters compared without case
 * or accents), hiding the letters left empty and saying how many are shown. Without JavaScript the
 * page lists every lender, with its index of first letters.
 */

const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

function setUp(form: HTMLFormElement, table: HTMLTableElement): void {
  const input = form.querySelector<HTMLInputElement>('input');
  const status = form.querySelector<HTMLElement>('.lenders-filter-status');
  const none = document.querySelector<HTMLElement>('.lenders-none');
  if (!input || !status) return;
  const groups = [...table.tBodies].map((body) => ({
    body,
    rows: [...body.rows]
      .filter((row) => row.dataset.names !== undefined)
      .map((row) => ({ row, names: fold(row.dataset.names!) })),
  }));
  const total = groups.reduce((n, g) => n + g.rows.length, 0);
  const update = () => {
    const wanted = fold(input.value);
    let shown = 0;
    for (const { body, rows } of groups) {
      let left = 0;
      for (const { row, names } of rows) {
        const keep = wanted === '' || names.includes(wanted);
        row.hidden = !keep;
        if (keep) left++;
      }
      body.hidden = left === 0;
      shown += left;
    }
    if (none) none.hidden = shown > 0;
    status.textContent = wanted === '' ? '' : `${shown} of ${total} lenders.`;
  };
  form.addEventListener('input', update);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    update();
  });
  form.hidden = false;
  update();
}

const form = document.querySelector<HTMLFormElement>('form.lenders-filter');
const table = document.querySelector<HTMLTableElement>('table.lenders');
if (form && table) setUp(form, table);
