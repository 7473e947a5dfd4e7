/**
 * The C2PA signing key of the stage: every result image is signed with it (Content Credentials, in
 * the tool step; lambdas/moteurs/c2pa/marquage.ts).
 *
 * - The EC P-256 private key is generated in the account at deploy time by a custom resource
 *   (lambdas/deploiement/cle-c2pa.ts) and written straight into a Secrets Manager secret that only
 *   the tool function may read (lib/acces.ts, `marquerC2pa`). It is never in the repository, the
 *   template, an output or a terminal.
 * - The certificate chain is configuration: `-c c2paChaine=<chain.pem>` (lib/configuration.ts), the
 *   certificates a CA on the C2PA trust list issued for the CSR this construct outputs (`C2paCsr`).
 *   Without it the resource issues a test chain: results validate but are not trusted.
 */
import { CfnOutput, CustomResource, Duration, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { accorder } from './acces';
import { politiqueDonnees, retentionJournaux, type ConfigurationStage } from './configuration';
import { Fonction } from './fonction';

/** Bump to rotate the C2PA key (a certificate issued for the old key then no longer fits: see docs/deployment.md, "Content Credentials"). */
export const GENERATION_CLE_C2PA = '1';

/** The stack outputs of this construct, as named in cdk-outputs.json. */
export const SORTIES_PROVENANCE = { csr: 'C2paCsr', signataire: 'C2paSignataire', test: 'C2paTest' } as const;

/** The name the test certificates of a stage carry, which says they are not to be trusted. */
export const organisationTest = (config: ConfigurationStage): string => `Retouche ${config.stage} (test, not trusted)`;

export class Provenance extends Construct {
  /** `{"clePrivee", "chaine"}`: readable by the tool function only. */
  readonly secret: Secret;
  /** The CSR for the key (PEM), for the operator to have certified. */
  readonly csr: string;
  /** The subject of the certificate results are signed with. */
  readonly signataire: string;
  /**
   * A digest of the chain, which changes with the key or the chain: set in the tool function's
   * environment, so a deploy that changes them starts new containers (warm ones keep what they read).
   */
  readonly empreinte: string;

  constructor(scope: Construct, id: string, config: ConfigurationStage) {
    super(scope, id);
    this.secret = new Secret(this, 'CleC2pa', {
      description: 'Retouche: EC P-256 key and certificate chain that sign C2PA Content Credentials (written by the CleC2pa resource)',
      removalPolicy: politiqueDonnees(config),
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason:
        'A signing key bound to a certificate a CA issued for it: an automatic rotation would leave it without a valid certificate. It is rotated on purpose by bumping GENERATION_CLE_C2PA, then certified again.',
    });

    const generateur = new Fonction(this, 'GenerateurCle', {
      module: 'deploiement/cle-c2pa',
      description: 'Deploy time: generates the C2PA signing key into its secret, with a test chain or the configured one',
      memoire: 256,
      delai: Duration.minutes(1),
      retention: retentionJournaux(config),
      removalPolicy: politiqueDonnees(config),
    });
    accorder(generateur, { cleC2pa: this.secret }, { genererCleC2pa: true });
    const cle = new CustomResource(this, 'CleC2paRessource', {
      serviceToken: generateur.functionArn,
      resourceType: 'Custom::CleC2pa',
      properties: {
        Secret: this.secret.secretArn,
        Generation: GENERATION_CLE_C2PA,
        Organisation: organisationTest(config),
        ...(config.c2paChaine ? { Chaine: config.c2paChaine } : {}),
      },
    });
    this.csr = cle.getAttString('Csr');
    this.signataire = cle.getAttString('Signataire');
    this.empreinte = cle.getAttString('Empreinte');

    // Named exactly (not prefixed by the construct path): operators and scripts read them by name.
    new CfnOutput(this, 'Csr', {
      value: this.csr,
      description: 'C2PA: certificate request for the signing key; have it certified by a CA on the C2PA trust list (docs/deployment.md)',
    }).overrideLogicalId(SORTIES_PROVENANCE.csr);
    new CfnOutput(this, 'Signataire', {
      value: this.signataire,
      description: 'C2PA: subject of the certificate results are signed with',
    }).overrideLogicalId(SORTIES_PROVENANCE.signataire);
    new CfnOutput(this, 'Test', {
      value: cle.getAttString('Test'),
      description: 'C2PA: true while results are signed with a test chain (valid, not trusted)',
    }).overrideLogicalId(SORTIES_PROVENANCE.test);
  }
}
