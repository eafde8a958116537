"""dataset.vision.RandomRotation with a fixed angle (degrees=(a, a)), nearest neighbour: the
rotated pixels of 1- and 3-channel uint8 images about the centre and about given centres, the fill
of pixels from outside (an int, and a 3-tuple: MindSpore writes it into the channels in reverse
order), 2-D images. Each case prints its image or its error."""
import importlib
import os

import numpy as np

ms = importlib.import_module(os.environ.get("MS_MODULE", "ms_core"))
vision = ms.dataset.vision

rs = np.random.RandomState(0)
CASES = []
for k, angle in enumerate((30, -45, 90, 15, 7.5, -120, 180, 33.3, 60, -10, 45, 0, 1.0, 359.0)):
    h, w = int(rs.randint(3, 12)), int(rs.randint(3, 12))
    img = rs.randint(0, 256, (h, w, (1, 3)[k % 2])).astype(np.uint8)
    center = None if k % 3 else (float(rs.randint(0, w)) + 0.5 * (k % 2), float(rs.randint(0, h)))
    fill = 17 if k % 4 == 0 else (3, 5, 9) if k % 2 else 0
    CASES.append((img, angle, center, fill))
CASES.append((rs.randint(0, 256, (6, 7)).astype(np.uint8), 25.0, None, 4))

for img, angle, center, fill in CASES:
    try:
        out = vision.RandomRotation((angle, angle), center=center, fill_value=fill)(img)
        print(angle, center, fill, out.shape, out.ravel().tolist())
    except (TypeError, ValueError, RuntimeError) as e:
        print(angle, center, fill, type(e).__name__, str(e).splitlines()[0])
for bad in (dict(degrees=-3), dict(degrees=(5, 1)), dict(degrees=10, fill_value=(1, 2))):
    try:
        vision.RandomRotation(**bad)
        print(bad, "accepted")
    except (TypeError, ValueError) as e:
        print(bad, type(e).__name__)
