/** The answer of both DELETE routes, from what the erasure did (core/domaine/effacement/). */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Issue } from '../core/domaine/effacement/commun';
import { ErreurApi } from '../core/modele/erreurs';
import { reponseJson } from './adaptateur';

export const repondreEffacement = (issue: Issue, quoi: 'job' | 'batch', id: string): APIGatewayProxyResult => {
  switch (issue.statut) {
    case 'efface':
      return reponseJson(200, issue.effacement);
    case 'absent':
      // Erased meanwhile by a concurrent request: as for any id that names nothing.
      throw new ErreurApi('not_found', `No ${quoi} ${id}.`);
    case 'differe':
      throw new ErreurApi(
        'still_running',
        `The ${quoi} ${id} cannot be erased yet (${issue.raison}); its erasure is recorded and done as soon as it has ended, within a few minutes of its end. Poll it until it answers 404.`,
        { effacement: 'programme' },
      );
  }
};
