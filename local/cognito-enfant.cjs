// Preloaded into the local Cognito emulator (local/cognito.ts), which we run as published:
// 1. it ends when its parent's end of stdin closes, which happens however the parent ends, SIGKILL included;
// 2. its log goes out as each line is logged: its pretty-printer's stream pipeline can hold the last
//    lines (a verification code) until something else is logged, and a person waiting for the code
//    gets none. The printer is replaced by one that writes each message's text at once;
// 3. it signs its tokens with the data folder's key (RETOUCHE_COGNITO_CLE, made by local/cognito.ts),
//    never with the one its package ships, which anyone can read and sign any user's session with. Its
//    key files are answered with ours, its `kid` is ours, and the access tokens its user operations
//    (GetUser, DeleteUser, UpdateUserAttributes, ChangePassword…) only decoded are verified first.
//    Without a key it does not start.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();

const { createPublicKey } = require('node:crypto');
const { readFileSync, writeSync } = require('node:fs');
const { sep } = require('node:path');
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

let cle;
try {
  cle = JSON.parse(readFileSync(process.env.RETOUCHE_COGNITO_CLE ?? '', 'utf8'));
} catch (erreur) {
  process.stderr.write(`no signing key for the local Cognito (RETOUCHE_COGNITO_CLE): ${erreur.message}\n`);
  process.exit(1);
}
const publique = createPublicKey({ key: cle.jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
const cles = {
  'cognitoLocal.private.json': { pem: cle.privee },
  'cognitoLocal.public.json': { jwk: cle.jwk, pem: publique },
};

const jetons = (jwt) => ({
  ...jwt,
  sign: (charge, secret, options, ...reste) => jwt.sign(charge, secret, options?.keyid ? { ...options, keyid: cle.jwk.kid } : options, ...reste),
  decode: (jeton, options) => {
    try {
      jwt.verify(jeton, publique, { algorithms: ['RS256'] });
    } catch {
      return null;
    }
    return jwt.decode(jeton, options);
  },
});

const DANS_COGNITO_LOCAL = `${sep}cognito-local${sep}lib${sep}`;
const charger = Module._load;
let jwtEmulateur;
Module._load = function (demande, parent, ...reste) {
  if (demande === 'pino-pretty') return Object.assign(imprimeur, { default: imprimeur });
  if (parent?.filename?.includes(DANS_COGNITO_LOCAL)) {
    const fichierCle = /^\.\.\/keys\/(cognitoLocal\.(?:private|public)\.json)$/.exec(demande)?.[1];
    if (fichierCle) return cles[fichierCle];
    if (demande === 'jsonwebtoken') return (jwtEmulateur ??= jetons(charger.call(this, demande, parent, ...reste)));
  }
  return charger.call(this, demande, parent, ...reste);
};
