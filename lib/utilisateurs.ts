/**
 * The web site's users: a Cognito user pool (email and password, the address verified by a code,
 * password reset by email) and the site's app client, public (a browser keeps no secret), signing in
 * with USER_PASSWORD_AUTH over TLS (the flow the local emulator also speaks: local/cognito.ts) and
 * refresh tokens that can be revoked. The API's session routes sit behind its Cognito authorizer; every
 * function a session may call verifies the ID token itself too (lambdas/core/infra/sessions.ts), with
 * the issuer and client this construct gives.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { AccountRecovery, FeaturePlan, Mfa, UserPool, UserPoolClient, UserPoolEmail, VerificationEmailStyle } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { politiqueDonnees, type ConfigurationStage } from './configuration';

export class Utilisateurs extends Construct {
  readonly pool: UserPool;
  readonly client: UserPoolClient;
  /** The ID tokens' issuer: RETOUCHE_SESSION_EMETTEUR. */
  readonly emetteur: string;

  constructor(scope: Construct, id: string, config: ConfigurationStage) {
    super(scope, id);
    this.pool = new UserPool(this, 'Pool', {
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      keepOriginal: { email: true },
      userVerification: {
        emailStyle: VerificationEmailStyle.CODE,
        emailSubject: 'Retouche: your verification code',
        emailBody: 'Your Retouche verification code is {####}. / Votre code de vérification Retouche est {####}.',
      },
      passwordPolicy: { minLength: 8, requireLowercase: true, requireUppercase: true, requireDigits: true, requireSymbols: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Through SES when the stage names its sender (required in production, lib/configuration.ts): Cognito's
      // own sender stops at 50 emails a day. The identity is the address's domain, as SES verifies it.
      email: config.emailExpediteur
        ? UserPoolEmail.withSES({
            fromEmail: config.emailExpediteur,
            fromName: 'Retouche',
            // The stage's own Region: SES identities are regional (docs/deployment.md, "Email").
            sesRegion: Stack.of(this).region,
            sesVerifiedDomain: config.emailExpediteur.slice(config.emailExpediteur.indexOf('@') + 1),
          })
        : UserPoolEmail.withCognito(),
      // Off: the web site can neither enrol an authenticator nor answer its challenge, so a user who turned
      // MFA on elsewhere (the Cognito API) could never sign in again.
      mfa: Mfa.OFF,
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: config.production,
      removalPolicy: politiqueDonnees(config),
    });
    this.client = this.pool.addClient('Site', {
      generateSecret: false,
      authFlows: { userPassword: true, userSrp: true },
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      // The site signs in with the user pool's API, never Cognito's hosted pages: no OAuth flow, no callback
      // URL (CDK's default enables the code and implicit grants to https://example.com).
      disableOAuth: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
    });
    this.emetteur = `https://cognito-idp.${Stack.of(this).region}.${Stack.of(this).urlSuffix}/${this.pool.userPoolId}`;

    Validations.of(this.pool).acknowledge(
      {
        id: 'AwsSolutions::AwsSolutions-COG1',
        reason: 'At least 8 characters with lower case, upper case and digits (NIST SP 800-63B advises length over symbol rules).',
      },
      {
        id: 'AwsSolutions::AwsSolutions-COG2',
        reason: 'MFA is off until the web site can enrol an authenticator and answer its challenge; sessions last an hour and refresh tokens can be revoked.',
      },
      {
        id: 'AwsSolutions::AwsSolutions-COG3',
        reason: 'Threat protection needs the Plus plan, priced per user; the API applies an exact per-user rate limit.',
      },
      {
        id: 'AwsSolutions::AwsSolutions-COG8',
        reason: 'Essentials plan: the Plus plan is priced per monthly user; Cognito still locks out repeated failed sign-ins.',
      },
    );
  }
}
