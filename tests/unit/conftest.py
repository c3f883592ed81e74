"""`ansible-test units` runs pytest with a configuration of its own, without pytest.ini's
pythonpath: the helpers in tests/ (alluxio_values) are put on the path here as pytest.ini does."""

import os
import sys

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTS not in sys.path:
    sys.path.append(TESTS)
