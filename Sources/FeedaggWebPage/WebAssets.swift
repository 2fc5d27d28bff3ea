/// The page's static files and the Content-Security-Policy they are written for.
///
/// `feedagg serve` answers ``scriptPath`` with ``script`` (`text/javascript; charset=utf-8`) and
/// ``stylesheetPath`` with ``stylesheet`` (`text/css; charset=utf-8`). Both are compiled into the
/// binary, so an installed `feedagg` needs no files beside it.
public enum WebAssets {
    /// Where the page loads its script from.
    public static let scriptPath = "/app.js"
    /// Where the page loads its stylesheet from.
    public static let stylesheetPath = "/app.css"
    /// The script's media type.
    public static let scriptContentType = "text/javascript; charset=utf-8"
    /// The stylesheet's media type.
    public static let stylesheetContentType = "text/css; charset=utf-8"
}
