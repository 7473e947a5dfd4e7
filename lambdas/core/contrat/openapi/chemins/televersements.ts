/**
 * POST /televersements in the OpenAPI document: photos too large for a request body go straight to
 * storage, by signed PUT URLs, then POST /travaux names them.
 */
import { ErreurApi } from '../../../modele/erreurs';
import { corpsJson, erreur, json, nonAutorise, retryAfter } from '../commun';
import { exempleErreur, EXEMPLES_ERREUR, ID_TELEVERSEMENT } from '../exemples';

const reponses = () => ({
  201: json('Televersements', 'One signed PUT URL per announced file, in order.', {
    televersement: {
      value: {
        televersements: [
          {
            id: ID_TELEVERSEMENT,
            url: `https://retouche-entrees.s3.eu-west-1.amazonaws.com/televersements/${ID_TELEVERSEMENT}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=0123abcd`,
            methode: 'PUT',
            entetes: { 'Content-Type': 'image/jpeg' },
            expire_le: '2026-01-01T10:15:00.000Z',
            utilisable_jusqua: '2026-01-01T10:30:00.000Z',
          },
        ],
      },
    },
  }),
  400: erreur('Malformed body.'),
  401: nonAutorise,
  402: erreur('The balance pays for no job (insufficient_credits): uploads are for jobs.', {
    credits: exempleErreur(
      new ErreurApi('insufficient_credits', 'Uploads are for jobs, and the balance is 0 credits: the cheapest job costs 2. Buy credits before uploading.', {
        credits: 0,
        requis: 2,
      }),
    ),
  }),
  413: erreur('A file is over 15 MB (image_too_large).'),
  415: erreur('Content-Type is not application/json.'),
  422: erreur('A bad entry (type, size) or not 1 to 50 files: error.details lists every problem.'),
  429: {
    description: 'Rate limited (120 requests per minute per key), or 100 uploads of the account already wait to be used (too_many_pending_uploads).',
    headers: retryAfter,
    content: corpsJson('Erreur', {
      ...EXEMPLES_ERREUR[429],
      televersements: exempleErreur(
        new ErreurApi(
          'too_many_pending_uploads',
          'At most 100 uploads may wait to be used per account; 95 are waiting and this request announces 10. Start jobs with them, or let unused ones expire (30 minutes after they were announced).',
          { televersements_ouverts: 95, max: 100, retry_after: 60 },
        ),
      ),
    }),
  },
});

export const cheminTeleversements = () => ({
  post: {
    operationId: 'creerTeleversements',
    summary: 'Upload full-size photos directly to storage (extension)',
    description:
      'Announce 1 to 50 files (type and exact size); each answer entry is a URL valid 15 minutes that accepts one PUT of exactly that file, with the given Content-Type. Then name the upload in POST /travaux as {"televersement": "<id>"} (or a multipart part televersement=<id>) within 30 minutes of the announcement (utilisable_jusqua); an upload starts one job, and an unused one is then deleted. Free, but the balance must pay for a job, and an account has at most 100 uploads announced and not yet used; counted by the rate limit.',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/RequeteTeleversements' },
          examples: { photo: { value: { fichiers: [{ nom: 'salon.jpg', type: 'image/jpeg', taille: 13_107_200 }] } } },
        },
      },
    },
    responses: reponses(),
  },
});
