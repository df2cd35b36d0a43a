// Every front end and stage speaks through `localized(…)`; the module comes with UniToolKit so
// that no file has to import it by name.
@_exported import Localization
