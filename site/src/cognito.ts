/**
 * The part of the AWS SDK the site uses. A module of its own so that the bundler keeps these seven
 * commands and leaves out the other hundred (the package's index exports them all), and so that
 * session.ts can load it with `import()` on first need: pages that never touch the session never
 * download it.
 */
export {
  CognitoIdentityProviderClient,
  ConfirmForgotPasswordCommand,
  ConfirmSignUpCommand,
  ForgotPasswordCommand,
  InitiateAuthCommand,
  ResendConfirmationCodeCommand,
  RevokeTokenCommand,
  SignUpCommand,
} from '@aws-sdk/client-cognito-identity-provider';
