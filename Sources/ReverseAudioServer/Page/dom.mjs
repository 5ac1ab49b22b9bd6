// Small DOM helpers shared by the page's parts: elements made from a description, and the
// alert that says, beside what failed, why.

export const $ = (id) => document.getElementById(id);

export function element(tag, properties = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(properties)) {
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('aria-') || key.startsWith('data-') || key === 'download' || key === 'href' || key === 'role') node.setAttribute(key, value);
    else node[key] = value;
  }
  node.append(...children);
  return node;
}

// Shows `text` in `place`'s alert (made on first use, as its last child): an error read out
// at once (role="alert"), where the user looks. `kind` 'error' or 'info'; no text clears it.
export function say(place, text, kind = 'error') {
  let alert = place.querySelector(':scope > .alert');
  if (!text) {
    if (alert) alert.remove();
    return;
  }
  if (!alert) {
    alert = element('div', { class: 'alert', role: kind === 'error' ? 'alert' : 'status' });
    place.append(alert);
  }
  alert.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  alert.classList.toggle('info', kind !== 'error');
  alert.textContent = text;
}
