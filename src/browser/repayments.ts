/**
 * The repayment figure of a comparison page (src/components/Repayments.astro): shows the form built
 * hidden, adds a "Monthly on $500,000 over 30 years" column to the page's table.compare-table (the
 * repayment at each row's `data-value`, "—" for a row without one) and follows the amount and the
 * term as they are typed, saying what changed in the form's status line. Without JavaScript none
 * of this happens and the page is as built.
 */
import {
  formatAmount,
  formatRepayment,
  MAX_AMOUNT,
  MAX_YEARS,
  monthlyRepayment,
  parseNumber,
  termMonths,
  termWords,
  validAmount,
} from '../lib/repayments.ts';

/** What a cell shows when there is no figure: the row has no rate, or the inputs are out of bounds. */
const NONE = '—';
/** How long typing must pause before the status line (a polite live region) is rewritten. */
const SETTLE_MS = 700;

function setUp(form: HTMLFormElement, table: HTMLTableElement): void {
  const amountInput = form.querySelector<HTMLInputElement>('input[name="amount"]');
  const yearsInput = form.querySelector<HTMLInputElement>('input[name="years"]');
  const status = form.querySelector<HTMLElement>('.repayment-status');
  const headRow = table.tHead?.rows[0];
  const rows = [...table.tBodies].flatMap((body) => [...body.rows]);
  // A page listing no lender has nothing to work out: it stays as built.
  if (!amountInput || !yearsInput || !status || !headRow || rows.length === 0) return;
  const noun = form.dataset.noun ?? 'loan';

  const header = document.createElement('th');
  header.scope = 'col';
  header.className = 'num repayment';
  headRow.append(header);
  // On a phone the columns stack without their headers (the page's style shows data-label before
  // each figure), and the caption says what the column is and links the form that explains it.
  const told = document.createElement('span');
  told.className = 'repayment-caption';
  table.caption?.append(' ', told);
  const cells = rows.map((row) => {
    const cell = document.createElement('td');
    cell.className = 'num repayment';
    cell.dataset.label = 'Monthly';
    row.append(cell);
    const value = row.dataset.value;
    return { cell, rate: value === undefined || value === '' ? undefined : Number(value) };
  });

  let timer: ReturnType<typeof setTimeout> | undefined;
  const say = (text: string, now: boolean) => {
    clearTimeout(timer);
    if (now) status.textContent = text;
    else timer = setTimeout(() => (status.textContent = text), SETTLE_MS);
  };

  const update = (now: boolean) => {
    const amount = parseNumber(amountInput.value);
    const years = parseNumber(yearsInput.value);
    const amountOk = amount !== undefined && validAmount(amount);
    const months = years === undefined ? undefined : termMonths(years);
    amountInput.setAttribute('aria-invalid', String(!amountOk));
    yearsInput.setAttribute('aria-invalid', String(months === undefined));
    if (!amountOk || months === undefined || years === undefined) {
      header.textContent = 'Monthly repayment';
      told.replaceChildren();
      for (const { cell } of cells) cell.textContent = NONE;
      say(
        amountOk
          ? `Enter a term of up to ${MAX_YEARS} years in whole months (1.5 is 18 months) to see the monthly repayments.`
          : `Enter an amount above $0 and up to ${formatAmount(MAX_AMOUNT)} to see the monthly repayments.`,
        now,
      );
      return;
    }
    const over = `${formatAmount(amount)} over ${termWords(months)}`;
    header.textContent = `Monthly on ${over}`;
    const link = document.createElement('a');
    link.href = `#${form.getAttribute('aria-labelledby') ?? ''}`;
    link.textContent = 'how';
    told.replaceChildren(`“Monthly”: repaying ${formatAmount(amount)} over ${termWords(months)} (`, link, ').');
    let first: { figure: string; rate: number } | undefined;
    for (const { cell, rate } of cells) {
      const monthly = rate === undefined ? undefined : monthlyRepayment(amount, rate, years);
      cell.textContent = monthly === undefined ? NONE : formatRepayment(monthly);
      if (monthly !== undefined && rate !== undefined && !first) first = { figure: cell.textContent, rate };
    }
    say(
      `Monthly repayment on a ${formatAmount(amount)} ${noun} over ${termWords(months)}` +
        (first ? `: ${first.figure} at the first rate listed (${first.rate.toFixed(2)} %)` : '') +
        ', in the table’s last column.',
      now,
    );
  };

  form.addEventListener('input', () => update(false));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    update(true);
  });
  update(true);
  form.hidden = false;
}

const form = document.querySelector<HTMLFormElement>('form.repayments');
const table = document.querySelector<HTMLTableElement>('table.compare-table');
if (form && table) setUp(form, table);
