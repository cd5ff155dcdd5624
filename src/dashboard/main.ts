/** The dashboard's entry: defines <refkit-dashboard> and its pages. */
import './app.js';
