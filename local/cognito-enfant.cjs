// Preloaded into the local Cognito emulator (local/cognito.ts), which we run as published:
// 1. it ends when its parent's end of stdin closes, which happens however the parent ends, SIGKILL included;
// 2. its log goes out as each line is logged: its pretty-printer's stream pipeline can hold the last
//    lines (a verification code) until something else is logged, and a person waiting for the code
//    gets none. The printer is replaced by one that writes each message's text at once.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();

const { writeSync } = require('node:fs');
const { Writable } = require('node:stream');
const Module = require('node:module');

const imprimeur = () =>
  new Writable({
    write(morceau, _codage, fini) {
      for (const ligne of String(morceau).split('\n')) {
        if (!ligne) continue;
        let texte = ligne;
        try {
          texte = String(JSON.parse(ligne).msg ?? ligne);
        } catch {
          // not JSON: as it is
        }
        writeSync(1, `${texte}\n`);
      }
      fini();
    },
  });

const charger = Module._load;
Module._load = function (demande, ...reste) {
  if (demande === 'pino-pretty') return Object.assign(imprimeur, { default: imprimeur });
  return charger.call(this, demande, ...reste);
};
