/** The portal page's entry: defines <refkit-portal>, which reads its campaign from the address. */
import './portal-app.js';
