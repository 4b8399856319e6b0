// Replaced by the OperationsTests suite.
