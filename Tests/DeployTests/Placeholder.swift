// Replaced by the DeployTests suite.
