// The keys every player has, wherever focus is but in a text field: Space play/pause, R the
// direction, ← → seek (Shift: finer), I and O the loop's points, L the whole-file loop,
// + and − the zoom. Space and R on a focused button are the player's too (a button keeps
// Enter): after a click on Play or Forwards, Space pauses, not presses it again.
import { state } from './state.mjs';
import { togglePlay, toggleDirection, seekBy, setLoopPoint, setZoom, toggleWholeLoop } from './player.mjs';

function typing(target) {
  const tag = target && target.tagName;
  const textInput = tag === 'INPUT' && !['range', 'button', 'checkbox', 'radio', 'submit', 'file'].includes(target.type);
  return textInput || tag === 'TEXTAREA' || tag === 'SELECT' || Boolean(target && target.isContentEditable);
}

document.addEventListener('keydown', (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented || typing(event.target)) return;
  switch (event.key) {
    case ' ':
    case 'Spacebar':
      event.preventDefault();
      if (!event.repeat) togglePlay();
      break;
    case 'r':
    case 'R':
      event.preventDefault();
      toggleDirection();
      break;
    case 'ArrowLeft':
    case 'ArrowRight':
      // On the slider too: its own step (10 ms) is too fine for a key.
      if (!state.source) return;
      event.preventDefault();
      seekBy((event.key === 'ArrowLeft' ? -1 : 1) * (event.shiftKey ? 1 : 5));
      break;
    case 'i':
    case 'I':
      setLoopPoint('in');
      break;
    case 'o':
    case 'O':
      setLoopPoint('out');
      break;
    case 'l':
    case 'L':
      toggleWholeLoop();
      break;
    case '+':
    case '=':
      setZoom(state.zoom * 2);
      break;
    case '-':
      setZoom(state.zoom / 2);
      break;
    default:
      break;
  }
});

// A button activates on Space's release: that, too, is the player's once the key was.
document.addEventListener('keyup', (event) => {
  if ((event.key === ' ' || event.key === 'Spacebar') && !typing(event.target)) event.preventDefault();
});
