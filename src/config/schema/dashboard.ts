import { runners } from '../kinds.js';
import { boolean, text } from '../values/scalars.js';
import { group, setting } from './define.js';

const CVKR = runners('C', 'V', 'K', 'R');

/** The web dashboard of the docker, vm, kubernetes and ssh runners. */
export const runnerDashboard = group(
  'Runners: dashboard',
  'The docker, vm, kubernetes and ssh runners can serve a web dashboard protected by basic authentication.',
  [
    setting('SVC_UI_DISABLED', CVKR, boolean, {
      description: "Turns the runner's dashboard off.",
    }),
    setting('SVC_UI_USERNAME', CVKR, text('a user name'), {
      description: 'Basic-authentication user name of the dashboard.',
    }),
    setting('SVC_UI_PASSWORD', CVKR, text('a password'), {
      secret: true,
      description: 'Basic-authentication password of the dashboard. Without it the dashboard stays disabled.',
    }),
    setting('SVC_UI_REALM', CVKR, text('a realm name'), {
      description: 'Basic-authentication realm of the dashboard.',
    }),
  ],
);
