/**
 * The quote check of a comparison page (src/components/QuoteCheck.astro): the form, submitted, asks
 * the quote check it points to for the rate typed (a "%" or spaces typed with it left out) and
 * writes the answer in words into its status line (src/lib/quote-words.ts), or the API's hint
 * when the rate is refused. Without JavaScript the form submits to the API and opens its JSON.
 */
import { type QuoteData, quoteInWords } from '../lib/quote-words.ts';

interface Answer {
  data?: QuoteData;
  hint?: string;
}

function setUp(form: HTMLFormElement): void {
  const rate = form.querySelector<HTMLInputElement>('input[name="rate"]');
  const measure = form.querySelector<HTMLInputElement>('input[name="measure"]');
  const status = form.querySelector<HTMLElement>('.quote-answer');
  if (!rate || !measure || !status) return;
  const wording = {
    best: form.dataset.best === 'highest' ? ('highest' as const) : ('lowest' as const),
    entityName: form.dataset.entityName ?? '',
    itemName: form.dataset.itemName ?? '',
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const query = new URLSearchParams({ measure: measure.value, rate: rate.value.replace(/[\s%]/g, '') });
    status.textContent = 'Checking…';
    try {
      const response = await fetch(`${form.action}?${query}`, { headers: { accept: 'application/json' } });
      const answer = (await response.json()) as Answer;
      const ok = response.ok && answer.data !== undefined;
      rate.setAttribute('aria-invalid', String(!ok));
      status.textContent = ok
        ? quoteInWords(answer.data!, wording)
        : (answer.hint ?? 'That rate could not be checked.');
    } catch {
      status.textContent = 'The check could not be made: try again.';
    }
  });
}

const form = document.querySelector<HTMLFormElement>('form.quote-check');
if (form) setUp(form);
