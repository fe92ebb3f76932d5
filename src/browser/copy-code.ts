/**
 * A "Copy" button on every code block (progressive enhancement: without JavaScript the block is
 * plain text to select). The button says whether the copy worked, and a live region repeats it
 * for screen readers.
 */
function copyBySelection(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return copyBySelection(text); // no clipboard API (an insecure origin) or no permission
  }
}

const blocks = document.querySelectorAll<HTMLPreElement>('pre');
for (const pre of blocks) {
  const code = pre.querySelector('code') ?? pre;
  const wrap = document.createElement('div');
  wrap.className = 'code-block';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', 'Copy code');
  const status = document.createElement('span');
  status.className = 'visually-hidden';
  status.setAttribute('role', 'status');
  let timer: ReturnType<typeof setTimeout> | undefined;
  button.addEventListener('click', async () => {
    const copied = await copy(code.textContent ?? '');
    button.textContent = copied ? 'Copied' : 'Select to copy';
    button.dataset.copied = String(copied);
    status.textContent = copied ? 'Copied to the clipboard' : 'Could not copy: select the code and copy it';
    clearTimeout(timer);
    timer = setTimeout(() => {
      button.textContent = 'Copy';
      status.textContent = '';
    }, 2500);
  });
  pre.replaceWith(wrap);
  wrap.append(pre, button, status);
}
