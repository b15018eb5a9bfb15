// Move, capture and roll sounds, made in the page (no sound files): off by
// default for people whose system asks for less motion, and the person's
// own choice kept in the browser after that.
'use strict';

const SOUNDS_KEY = 'menagerie-board-sounds';

/** Each sound: tones (frequency in Hz, start and length in seconds). */
const SOUNDS = {
  move: [[520, 0, 0.07]],
  capture: [[330, 0, 0.09], [220, 0.08, 0.12]],
  roll: [[900, 0, 0.03], [760, 0.05, 0.03]],
  end: [[440, 0, 0.12], [660, 0.12, 0.2]],
};

let audio = null;

/** Whether sounds start on: the person's choice, else on unless the
 * system asks for less motion. */
function soundsWanted() {
  let kept = null;
  try { kept = localStorage.getItem(SOUNDS_KEY); } catch (e) { /* storage refused */ }
  if (kept === 'on' || kept === 'off') return kept === 'on';
  return !matchMedia('(prefers-reduced-motion: reduce)').matches;
}

function playSound(kind) {
  if (!$('sounds').checked || !SOUNDS[kind]) return;
  // Counted for the browser test, which cannot hear.
  document.body.dataset.sounds = `${document.body.dataset.sounds || ''} ${kind}`.trim().split(' ').slice(-20).join(' ');
  try {
    audio ||= new AudioContext();
    if (audio.state === 'suspended') audio.resume().catch(() => {});
    const now = audio.currentTime;
    for (const [frequency, at, length] of SOUNDS[kind]) {
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      tone.frequency.value = frequency;
      volume.gain.setValueAtTime(0.15, now + at);
      volume.gain.exponentialRampToValueAtTime(0.001, now + at + length);
      tone.connect(volume).connect(audio.destination);
      tone.start(now + at);
      tone.stop(now + at + length);
    }
  } catch (e) {
    // No audio here (a browser without Web Audio): the game goes on silent.
  }
}

/** The sound of the move that made ply `ply`, once, as it is played (not
 * while stepping back, nor when a game is set up move by move). */
let soundedPly = null;
function soundForPly(ply) {
  const before = soundedPly;
  soundedPly = ply;
  if (state.view !== null || before === null || ply !== before + 1) return;
  if (!ongoing()) return playSound('end');
  if ((state.history[ply - 1] || {}).chance) return playSound('roll');
  playSound((state.captures || [])[ply - 1] ? 'capture' : 'move');
}

function setUpSounds() {
  $('sounds').checked = soundsWanted();
  $('sounds').onchange = () => {
    try { localStorage.setItem(SOUNDS_KEY, $('sounds').checked ? 'on' : 'off'); } catch (e) { /* storage refused */ }
  };
}
