import Analysis
import BookImport
import BookshelfScan
import ProductionKit
import TableRead

/// The production types this build runs: the one list. The CLI, the worker's registry, the
/// coordinator's plans, `reparto results`, `reparto status`, the dashboard, the asset sweep and
/// `reparto migrate` all iterate it; a new type is one line here.
public enum ProductionTypes {
    public static var all: [any ProductionType.Type] { [
        TableReadProduction.self,
        BookImportProduction.self,
        AnalysisProduction.self,
        BookshelfScanProduction.self,
    ] }
}
